// How a failing test fails, as comment lines under its source in the tests block: the
// message line by line, so node:assert's `+ actual - expected` diff and tape's
// `expected: …` / `actual: …` values read as the runner printed them. A long message keeps
// its lines, each cut with the cut marked, and says where a long expected and actual differ.
import { stripVTControlCharacters } from "node:util";
import { describeMismatch, mismatchOf, pytestDiff } from "../../verify/digest/value-mismatch.ts";
import type { TestCaseResult } from "../../verify/test-report.ts";

/** A message up to this many characters and lines, none longer than LINE_CHARS, is shown whole. */
const WHOLE_CHARS = 3000;
const WHOLE_LINES = 60;
/** Past that, each line is cut to about this many characters and at most this many lines are kept. */
const LINE_CHARS = 400;
const MAX_LINES = 40;

export function failureLines(t: TestCaseResult): string {
  const message = stripVTControlCharacters(t.message ?? "")
    .replace(/\r\n/g, "\n")
    .trimEnd();
  // pytest's diff, unless the message already holds it (a message with its "Full diff:" lines).
  const messageLines = new Set(message.split("\n").map((l) => l.trim()));
  const diff = pytestDiff(stripVTControlCharacters(t.details ?? ""));
  const pytest =
    diff.length > 0 && !diff.every((l) => messageLines.has(l.trim())) ? `\n# pytest's diff: ${diff.join(" | ")}` : "";
  if (!message) return `# fails now with: ${t.status}${pytest}`;
  const [first = "", ...rest] = message.split("\n");
  const whole =
    message.length <= WHOLE_CHARS && rest.length < WHOLE_LINES && [first, ...rest].every((l) => l.length <= LINE_CHARS);
  const shown = whole ? rest : rest.slice(0, MAX_LINES).map(cutLine);
  const more = whole || rest.length <= MAX_LINES ? [] : [`…(${String(rest.length - MAX_LINES)} more lines not shown)`];
  const mismatch = whole ? undefined : mismatchOf(message);
  const where = mismatch ? [`where they differ: ${describeMismatch(mismatch, 80)}`] : [];
  const lines = [...shown, ...more, ...where].map((l) => `#   ${l}`.trimEnd());
  return [`# fails now with: ${whole ? first : cutLine(first)}`, ...lines].join("\n") + pytest;
}

/** How a case fails in one line: the message's first line, cut (a case after the first few of a parametrized test). */
export function failureFirstLine(t: TestCaseResult): string {
  const first =
    stripVTControlCharacters(t.message ?? "")
      .split(/\r?\n/)[0]
      ?.trimEnd() ?? "";
  return `# fails now with: ${first ? cutLine(first) : t.status}`;
}

/** A line within LINE_CHARS: its head and tail with the number of characters cut between them. */
function cutLine(line: string): string {
  if (line.length <= LINE_CHARS) return line;
  const part = Math.floor((LINE_CHARS - 30) / 2);
  return `${line.slice(0, part)} …(${String(line.length - 2 * part)} chars cut)… ${line.slice(-part)}`;
}
