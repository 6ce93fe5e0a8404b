// Strict flag parsing for subcommands: an unknown flag or a missing value is a
// UsageError (exit 2), never silently ignored.
import { parseArgs, type ParseArgsConfig } from "node:util";
import { UsageError } from "./command.ts";

export function parseFlags<T extends NonNullable<ParseArgsConfig["options"]>>(
  args: string[],
  options: T,
  allowPositionals = true,
) {
  try {
    return parseArgs({ args, options, strict: true, allowPositionals });
  } catch (error) {
    throw new UsageError((error as Error).message.split("\n")[0] ?? "invalid arguments");
  }
}
