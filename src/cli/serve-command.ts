import { ENV_HELP, EnvConfigError, loadServerConfig } from "../config/env-config.ts";
import { loadOpsConfig } from "../config/ops-config.ts";
import { startServer } from "../server/start-server.ts";
import { EXIT, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

/** How long a SIGTERM waits for running jobs to checkpoint before their test runs are killed. */
const SHUTDOWN_GRACE_MS = 20_000;
/** Past the grace, a stop that still hangs (a stuck handle) ends the process anyway. */
const SHUTDOWN_HARD_LIMIT_MS = SHUTDOWN_GRACE_MS + 5_000;

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "run the GitHub App server (webhooks, jobs, health endpoint)",
  usage: [
    "autogen-bot serve",
    "",
    "Configured by environment variables; .env.example lists them all and docs/deployment.md says how to create the App.",
    "SIGTERM or SIGINT stops accepting webhooks, gives running jobs 20 s to checkpoint, then exits; a second signal exits at once.",
    "",
    "Required: APP_ID, WEBHOOK_SECRET, and PRIVATE_KEY or PRIVATE_KEY_PATH. Every variable read:",
    ...Object.entries(ENV_HELP).map(([name, help]) => `  ${name}\n      ${help}`),
  ].join("\n"),
  async run(args, io) {
    parseFlags(args, {}, false);
    let config;
    let ops;
    try {
      config = loadServerConfig(io.env);
      ops = loadOpsConfig(io.env);
    } catch (error) {
      if (error instanceof EnvConfigError) {
        io.stderr(`autogen-bot serve: ${error.message}\n`);
        return EXIT.usage;
      }
      throw error;
    }
    const running = await startServer(config, { shutdownGraceMs: SHUTDOWN_GRACE_MS, ops });
    const extras = [ops.metrics.enabled ? "metrics at /metrics" : "", ops.dashboard.mode !== "off" ? `dashboard at /dashboard (${ops.dashboard.mode})` : ""].filter(Boolean);
    io.stdout(`autogen-bot listening on ${running.url} (webhooks at ${config.webhookPath}, health at /healthz${extras.map((e) => `, ${e}`).join("")})\n`);
    await new Promise<void>((resolve) => {
      let stopping = false;
      const stop = (signal: NodeJS.Signals) => {
        if (stopping) {
          io.stderr(`autogen-bot serve: ${signal} again, exiting now\n`);
          process.exit(EXIT.failed);
        }
        stopping = true;
        io.stderr(`autogen-bot serve: ${signal}, stopping (at most ${SHUTDOWN_HARD_LIMIT_MS / 1000} s)\n`);
        setTimeout(() => {
          io.stderr("autogen-bot serve: the stop did not finish in time, exiting\n");
          process.exit(EXIT.failed);
        }, SHUTDOWN_HARD_LIMIT_MS).unref();
        void running.stop().then(resolve, resolve);
      };
      process.on("SIGINT", stop);
      process.on("SIGTERM", stop);
    });
    // A handle left open by a library (a client's keep-alive socket, a timer) must not keep
    // a stopped server alive; an unref'd timer fires only if something else still does.
    setTimeout(() => process.exit(EXIT.ok), 1_000).unref();
    return EXIT.ok;
  },
};
