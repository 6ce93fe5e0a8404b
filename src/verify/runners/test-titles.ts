// Selecting tests by name in runners that match a test's full title (its describe blocks'
// names and its own, joined by spaces: vitest, jest, mocha), from our ids
// ("file > describe > name", the file part absent in some reports).
import { escapeRegExp, safeIds } from "./test-runner.ts";

const FILE = /\.[cm]?[jt]sx?$|\//;

export function fullTitle(id: string): string {
  const parts = id.split(" > ");
  return (parts.length > 1 && FILE.test(parts[0] ?? "") ? parts.slice(1) : parts).join(" ");
}

/** A pattern for the runners' `-t`/`--grep`: the full title, preceded by nothing or by a space (a file-level name some versions prefix). */
export function fullTitlePattern(ids: string[]): string {
  return `(?:^| )(?:${safeIds(ids)
    .map((id) => escapeRegExp(fullTitle(id)))
    .join("|")})$`;
}

/** The options a runner's own command may carry that the bot sets itself: those followed by a value, and flags (no value). */
export type OwnOptions = { withValue: readonly string[]; flags: readonly string[] };

/**
 * The arguments of a runner's own command that name what to run (files, folders, globs, its
 * options), without those the bot sets itself. An option with a value drops the next argument
 * too (unless written `--opt=value`); a flag drops only itself, and an explicit `true`/`false`
 * after it (`--coverage false`), so `jest --coverage src/` keeps `src/`.
 */
export function keptArguments(args: readonly string[], options: OwnOptions): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const name = arg.split("=")[0] ?? arg;
    if (options.withValue.includes(name)) {
      if (!arg.includes("=")) i++;
      continue;
    }
    if (options.flags.includes(name)) {
      if (!arg.includes("=") && (args[i + 1] === "true" || args[i + 1] === "false")) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}
