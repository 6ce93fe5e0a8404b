// The `autogen` command: global flags, subcommand dispatch, usage errors as exit 2.
import { VERSION } from "../version.ts";
import { checkConfigCommand } from "./check-config-command.ts";
import { dashboardCommand } from "./dashboard-command.ts";
import { EXIT, UsageError, type CliCommand, type CliIo } from "./command.ts";
import { evalCommand } from "./eval-command.ts";
import { fixCommand } from "./fix-command.ts";
import { commandHelp, strategyLines } from "./flag-help.ts";
import { initWorkflowCommand } from "./init-workflow-command.ts";
import { serveCommand } from "./serve-command.ts";

export const COMMANDS: readonly CliCommand[] = [
  fixCommand,
  serveCommand,
  evalCommand,
  checkConfigCommand,
  initWorkflowCommand,
  dashboardCommand,
];

export function usage(): string {
  const width = Math.max(...COMMANDS.map((c) => c.name.length));
  return [
    "Usage: autogen-bot <command> [options]",
    "",
    "Commands:",
    ...COMMANDS.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`),
    "",
    "Options:",
    "  -h, --help     show this help (or a command's, one line per flag: autogen-bot <command> --help)",
    "  -v, --version  print the version",
    "",
    "Strategies (fix --strategy, eval --strategy):",
    ...strategyLines(),
    "",
    "From a checkout: npx autogen-bot <command>, or npm run autogen -- <command>.",
    "Exit codes: 0 success, 1 the work failed (e.g. no fix found, invalid config), 2 bad input or usage.",
    "",
  ].join("\n");
}

export async function main(argv: string[], io: CliIo): Promise<number> {
  const [first, ...rest] = argv;
  const asked = first === "help" ? COMMANDS.find((c) => c.name === rest[0]) : undefined;
  if (asked) {
    io.stdout(commandHelp(asked));
    return EXIT.ok;
  }
  if (first === "help" && rest[0] !== undefined) {
    io.stderr(`autogen-bot: unknown command "${rest[0]}"\n\n${usage()}`);
    return EXIT.usage;
  }
  if (first === undefined || first === "-h" || first === "--help" || first === "help") {
    io.stdout(usage());
    return first === undefined ? EXIT.usage : EXIT.ok;
  }
  if (first === "-v" || first === "--version") {
    io.stdout(`${VERSION}\n`);
    return EXIT.ok;
  }
  const command = COMMANDS.find((c) => c.name === first);
  if (!command) {
    io.stderr(`autogen-bot: unknown command "${first}"\n\n${usage()}`);
    return EXIT.usage;
  }
  if (rest.includes("-h") || rest.includes("--help")) {
    io.stdout(commandHelp(command));
    return EXIT.ok;
  }
  try {
    return await command.run(rest, io);
  } catch (error) {
    if (error instanceof UsageError) {
      io.stderr(`autogen-bot ${command.name}: ${error.message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}
