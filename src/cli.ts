// Entry point of the `autogen` command.
import { main } from "./cli/main.ts";

const code = await main(process.argv.slice(2), {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
  env: process.env,
  cwd: process.cwd(),
  isTty: Boolean(process.stdout.isTTY),
});
process.exitCode = code;
