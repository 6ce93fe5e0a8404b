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

/** The arguments of a runner's own command that name what to run (files, folders, globs, its options), without those that set its reporter. */
export function keptArguments(args: readonly string[], reporterOptions: readonly string[]): string[] {
  const kept: string[] = [];
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as string;
    const name = arg.split("=")[0] ?? arg;
    if (reporterOptions.includes(name)) {
      if (!arg.includes("=")) i++;
      continue;
    }
    kept.push(arg);
  }
  return kept;
}
