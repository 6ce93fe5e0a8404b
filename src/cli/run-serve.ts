// The work of `autogen-bot serve`, loaded when the command runs; serve-command.ts describes it
// and holds its name, summary and usage.
import { withDotEnv } from "../config/dotenv-file.ts";
import { EnvConfigError, loadServerConfig } from "../config/env-config.ts";
import { loadOpsConfig } from "../config/ops-config.ts";
import { startSetupServer } from "../server/app-setup/setup-server.ts";
import { startServer } from "../server/start-server.ts";
import { EXIT, type CliIo } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

/** How long a SIGTERM waits for running jobs to checkpoint before their test runs are killed. */
const SHUTDOWN_GRACE_MS = 20_000;
/** Past the grace, a stop that still hangs (a stuck handle) ends the process anyway. */
const SHUTDOWN_HARD_LIMIT_MS = SHUTDOWN_GRACE_MS + 5_000;

const APP_VARIABLES = ["APP_ID", "PRIVATE_KEY", "PRIVATE_KEY_PATH", "WEBHOOK_SECRET"];

/** Any of the App's own variables set: the operator is configuring one by hand, so no setup page. */
function appConfigured(env: NodeJS.ProcessEnv): boolean {
  return APP_VARIABLES.some((name) => (env[name] ?? "").trim() !== "");
}

/** The setup page until the App is created (its variables, saved to .env), or undefined when stopped first. */
async function setUpApp(env: NodeJS.ProcessEnv, io: CliIo): Promise<Record<string, string> | undefined> {
  const ghe = env.GHE_HOST?.trim();
  const publicUrl = env.AUTOGEN_PUBLIC_URL?.trim().replace(/\/$/, "");
  const setup = await startSetupServer({
    host: env.HOST?.trim() || "localhost",
    port: Number(env.PORT?.trim() || 3000),
    webUrl: ghe ? `https://${ghe}` : "https://github.com",
    apiUrl: ghe ? `https://${ghe}/api/v3` : "https://api.github.com",
    webhookUrl: publicUrl ? `${publicUrl}${env.WEBHOOK_PATH?.trim() || "/api/github/webhooks"}` : undefined,
    envDir: io.cwd,
  });
  io.stdout(
    `No GitHub App is configured: open ${setup.url} to create one from app.yml` +
      " (or set APP_ID, PRIVATE_KEY_PATH and WEBHOOK_SECRET, see .env.example; --no-setup only lists what is missing)\n",
  );
  let stop = () => {};
  const stopped = new Promise<undefined>((resolve) => (stop = () => resolve(undefined)));
  process.once("SIGINT", stop);
  process.once("SIGTERM", stop);
  const result = await Promise.race([setup.done, stopped]);
  process.off("SIGINT", stop);
  process.off("SIGTERM", stop);
  await setup.close();
  if (!result) {
    io.stderr("autogen-bot serve: stopped before the App was created\n");
    return undefined;
  }
  const { app, envFile } = result;
  io.stdout(`created the GitHub App ${app.slug} (id ${app.id}); its credentials are in ${envFile}; starting\n`);
  return result.values;
}

export async function runServe(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(args, { "no-setup": { type: "boolean" } }, false);
  const { env } = withDotEnv(io.env, io.cwd);
  if (!values["no-setup"] && !appConfigured(env)) {
    const created = await setUpApp(env, io);
    if (!created) return EXIT.failed;
    Object.assign(env, created);
  }
  let config;
  let ops;
  try {
    config = loadServerConfig(env);
    ops = loadOpsConfig(env);
  } catch (error) {
    if (error instanceof EnvConfigError) {
      io.stderr(`autogen-bot serve: ${error.message}\n`);
      return EXIT.usage;
    }
    throw error;
  }
  const running = await startServer(config, { shutdownGraceMs: SHUTDOWN_GRACE_MS, ops });
  const extras = [
    ops.metrics.enabled ? "metrics at /metrics" : "",
    ops.dashboard.mode !== "off" ? `dashboard at /dashboard (${ops.dashboard.mode})` : "",
  ].filter(Boolean);
  io.stdout(
    `autogen-bot listening on ${running.url} (webhooks at ${config.webhookPath}, health at /healthz${extras.map((e) => `, ${e}`).join("")})\n`,
  );
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
}
