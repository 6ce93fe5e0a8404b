import { EnvConfigError, loadServerConfig } from "../config/env-config.ts";
import { startServer } from "../server/start-server.ts";
import { EXIT, type CliCommand } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "run the GitHub App server (webhooks, jobs, health endpoint)",
  usage: "autogen serve\n\nConfigured by environment variables; see .env.example and docs/deployment.md.",
  async run(args, io) {
    parseFlags(args, {}, false);
    let config;
    try {
      config = loadServerConfig(io.env);
    } catch (error) {
      if (error instanceof EnvConfigError) {
        io.stderr(`autogen serve: ${error.message}\n`);
        return EXIT.usage;
      }
      throw error;
    }
    const running = await startServer(config);
    io.stdout(`autogen-bot listening on ${running.url} (webhooks at ${config.webhookPath}, health at /healthz)\n`);
    await new Promise<void>((resolve) => {
      const stop = () => void running.stop().then(resolve);
      process.once("SIGINT", stop);
      process.once("SIGTERM", stop);
    });
    return EXIT.ok;
  },
};
