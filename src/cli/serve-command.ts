// Its work is in run-serve.ts, loaded only when the command runs: another command's start (or a
// --help) does not load its modules.
import { ENV_HELP } from "../config/env-config.ts";
import type { CliCommand } from "./command.ts";

export const serveCommand: CliCommand = {
  name: "serve",
  summary: "run the GitHub App server (webhooks, jobs, health endpoint)",
  usage: [
    "autogen-bot serve [--no-setup]",
    "",
    "Configured by environment variables, and by a .env file in the current folder for those unset;",
    ".env.example lists them all and docs/deployment.md says how to create the App.",
    "With no App configured (none of APP_ID, PRIVATE_KEY(_PATH), WEBHOOK_SECRET set), it first opens a",
    "setup page on HOST:PORT that creates the App from app.yml on GitHub (the manifest flow), saves its",
    "credentials to .env and then starts; --no-setup reports what is missing instead.",
    "SIGTERM or SIGINT stops accepting webhooks, gives running jobs 20 s to checkpoint, then exits; a second signal exits at once.",
    "",
    "Required: APP_ID, WEBHOOK_SECRET, and PRIVATE_KEY or PRIVATE_KEY_PATH. Every variable read:",
    ...Object.entries(ENV_HELP).map(([name, help]) => `  ${name}\n      ${help}`),
  ].join("\n"),
  run: async (args, io) => (await import("./run-serve.ts")).runServe(args, io),
};
