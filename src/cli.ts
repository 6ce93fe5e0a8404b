// Entry point of the `autogen` command.
import { main } from "./cli/main.ts";
import { dropSecretsFromEnvironment } from "./secrets/drop-secrets.ts";
import { installSandboxCleanup } from "./verify/sandbox/live-sandboxes.ts";

// The commands read their configuration from this copy; the process's own environment
// loses its secrets before anything is started.
const env = { ...process.env };
dropSecretsFromEnvironment(process.env);
// Ctrl-C or a supervisor's SIGTERM ends every sandboxed run first. `serve` closes the
// server on the same signals after this has run.
installSandboxCleanup(process.argv[2] === "serve" ? () => undefined : undefined);

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env,
  // `npm run autogen -- …` runs in the package root; paths the user typed are relative to
  // the folder npm was called from (INIT_CWD).
  cwd: process.env.npm_lifecycle_event === "autogen" && process.env.INIT_CWD ? process.env.INIT_CWD : process.cwd(),
  isTty: Boolean(process.stdout.isTTY),
});
process.exitCode = code;
