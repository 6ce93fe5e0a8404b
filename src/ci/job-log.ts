// A GitHub Actions job log as the bot reads it: each line without its timestamp and ANSI
// codes, and the steps the runner marked (`##[group]Run …`, `##[error]…`) found again.
import { cleanLogLine, splitLogLines } from "../verify/digest/clean-log-line.ts";

export function cleanJobLog(text: string): string {
  return splitLogLines(text.replace(/^\uFEFF/, ""))
    .map(cleanLogLine)
    .join("\n")
    .replace(/\n+$/, "\n");
}

/** The `##[error]` lines of a log (the runner's own summary of what failed). */
export function errorLines(cleanLog: string): string[] {
  return cleanLog
    .split("\n")
    .filter((l) => l.startsWith("##[error]"))
    .map((l) => l.slice("##[error]".length).trim());
}
