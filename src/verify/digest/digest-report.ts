// The failure digest of a TestReport: what the model needs to see about each failing
// test (id, exception and message, the assertion's values, the stack frames inside the
// repository with their source lines), within a character budget.
import { stripVTControlCharacters } from "node:util";
import { failingTests, type TestReport } from "../test-report.ts";
import { summariseValue } from "./summarise-value.ts";
import { pytestDiff, summariseFailure } from "./value-mismatch.ts";

/** The first failing test's message is kept whole up to this many characters (its expected value is what a plan is checked against). */
export const FIRST_MESSAGE_CHARS = 3000;
const MESSAGE_CHARS = 400;

export type SourceReader = (file: string, line: number) => string | undefined;

export type ReportDigestOptions = {
  maxChars?: number;
  isRepoFile?: (file: string) => boolean;
  readSource?: SourceReader;
};

/** Stack frame shapes: Python tracebacks, pytest's short form, and JS/Java stacks. */
const FRAMES = [
  /File "([^"]+)", line (\d+)/,
  /^([^\s:]+\.(?:py|[cm]?[jt]sx?)):(\d+)(?::\d+)?:? /,
  /\(?((?:[^\s()]+\/)?[^\s():]+\.[cm]?[jt]sx?):(\d+):\d+\)?$/,
  /\(([A-Za-z0-9_$]+\.(?:java|kt)):(\d+)\)/,
];

export function digestReport(report: TestReport, options: ReportDigestOptions = {}): string {
  const maxChars = options.maxChars ?? 6000;
  const failing = failingTests(report);
  const header =
    `${failing.length} of ${report.tests.length} tests failing` +
    (report.run.timedOut ? " (the run timed out)" : "") +
    `; command: ${report.run.argv.join(" ")}; exit ${String(report.run.exitCode)}`;
  const tail = () => stripVTControlCharacters(report.run.output).split("\n").slice(-15).join("\n");
  if (failing.length === 0 && report.tests.length === 0)
    return `${header}\nNo test results were read. Output ends with:\n${tail()}`.slice(0, maxChars);
  // Every test passed and the runner still failed (a type check, a coverage threshold, an error after the tests):
  // the reason is only in its output.
  if (failing.length === 0 && report.run.exitCode !== 0 && report.run.exitCode !== null && !report.run.timedOut)
    return `${header}\nNo test failed, yet the command exited ${String(report.run.exitCode)}. Output ends with:\n${tail()}`.slice(
      0,
      maxChars,
    );
  const sections: string[] = [];
  let used = header.length;
  for (const [index, test] of failing.entries()) {
    const lines = [`${index + 1}. ${test.id} [${test.status}]`];
    if (test.message)
      lines.push(
        `   message: ${summariseFailure(stripVTControlCharacters(test.message), index === 0 ? FIRST_MESSAGE_CHARS : MESSAGE_CHARS)}`,
      );
    const details = stripVTControlCharacters(test.details ?? "");
    const diff = pytestDiff(details);
    if (diff.length > 0) lines.push(`   diff: ${diff.join(" | ")}`);
    const assertion = /^E\s+(assert .*)$/m.exec(details)?.[1] ?? /^E\s+(AssertionError: .*)$/m.exec(details)?.[1];
    if (assertion && !test.message?.includes(assertion)) lines.push(`   assertion: ${summariseValue(assertion, 300)}`);
    const exception = /^E\s+([A-Za-z_][\w.]*(?:Error|Exception|Exit|Interrupt)\b.*)$/m.exec(details)?.[1];
    if (exception && !test.message?.includes(exception)) lines.push(`   exception: ${summariseValue(exception, 300)}`);
    for (const frame of repoFrames(details, options)) lines.push(`   at ${frame}`);
    const section = lines.join("\n");
    if (used + section.length + 1 > maxChars) {
      sections.push(`(${failing.length - index} more failing tests not shown: budget of ${maxChars} characters)`);
      break;
    }
    sections.push(section);
    used += section.length + 1;
  }
  return [header, ...sections].join("\n");
}

function repoFrames(details: string, options: ReportDigestOptions): string[] {
  const frames: string[] = [];
  const seen = new Set<string>();
  for (const line of details.split("\n")) {
    for (const pattern of FRAMES) {
      const match = pattern.exec(line.trim());
      if (!match) continue;
      const [, file, lineNo] = match as unknown as [string, string, string];
      if (
        file.includes("site-packages") ||
        file.includes("node_modules") ||
        file.startsWith("node:") ||
        (options.isRepoFile && !options.isRepoFile(file))
      )
        break;
      const key = `${file}:${lineNo}`;
      if (seen.has(key)) break;
      seen.add(key);
      const source = options.readSource?.(file, Number(lineNo))?.trim();
      frames.push(source ? `${key}: ${summariseValue(source, 160)}` : key);
      break;
    }
    if (frames.length >= 8) break;
  }
  return frames;
}
