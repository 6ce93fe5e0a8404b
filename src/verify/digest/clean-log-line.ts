// One CI log line without what varies between runs and carries no meaning: ANSI codes,
// GitHub Actions' job/step columns and timestamps, Travis fold markers.
import { stripVTControlCharacters } from "node:util";

const GITHUB_COLUMNS = /^[^\t]*\t[^\t]*\t(?=\d{4}-\d\d-\d\dT)/;
const TIMESTAMP = /^\uFEFF?\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/;
const TRAVIS = /travis_(fold|time):[a-z]+:[^\s]*|\r/g;

export function cleanLogLine(line: string): string {
  const plain = line.includes("\u001b") || line.includes("\u009b") ? stripVTControlCharacters(line) : line;
  return (plain.includes("\t") ? plain.replace(GITHUB_COLUMNS, "") : plain).replace(TIMESTAMP, "").replace(TRAVIS, "");
}

/** A form for comparing lines across runs: numbers, hashes, durations and temp names masked. */
export function normaliseLogLine(line: string): string {
  return maskCleanLine(cleanLogLine(line));
}

/** normaliseLogLine of a line already cleaned. */
export function maskCleanLine(clean: string): string {
  return clean
    .replace(/\b[0-9a-f]{7,40}\b/gi, "<hash>")
    .replace(/\d+(\.\d+)?/g, "0")
    .replace(/\/tmp\/[^\s/]+/g, "/tmp/<tmp>")
    .replace(/\s+/g, " ")
    .trim();
}

/** Universal newlines: \r\n, \n and a lone \r each end a line (as the logs' own line numbers count). */
export function splitLogLines(text: string): string[] {
  return text.split(/\r\n|\n|\r/);
}
