// What one CI log line says on its own, whatever the tool: error vocabulary, diagnostic and
// stack-trace shapes, the start of a shell step and its exit status, and the template of the
// line (its words with numbers, hashes, paths and quoted values masked) for rarity counts.
import { TOOL_CONTINUATION, toolSignal } from "./tool-report-signals.ts";

export const SIGNALS: Array<[RegExp, number]> = [
  [/\b(BUILD FAILURE|FAILURE: Build failed|Build failed|COMPILATION ERROR)\b/i, 3],
  [
    /^\s*\[ERROR\]|^\s*ERROR\b|##\[error\]|^\s*npm ERR!|^\s*error(\[E\d+\])?:|^\s*E\s{2,}|^\s*fatal:|^\s*\[error\]|^\s*\*\* \(|^\s*✖|^\s*❌/,
    4,
  ],
  // A compiler or linter diagnostic: path:line[:col]: error|warning, or path:line message.
  [
    /^\s*[\w./\\-]+\.\w+:\d+(:\d+)?:?\s+(\w+\s+)?(error|fatal|[Ee]rror)\b|^\s*[\w./\\-]+\.\w+[:(]\d+(:\d+|,\d+)?\)?:?\s+error\b/,
    4,
  ],
  [/\b(FAILED|FAIL|FAILURES?|Failures?: [1-9]|Errors: [1-9]|[Ff]ailed|failing)\b/, 3],
  [
    /\b[A-Z]\w*(Exception|Error)\b(?!s?: 0)(?=[:\s(]|$)|^\s*Error:|Traceback \(most recent call last\)|panic:|Segmentation fault|assert(ion)? (with .* )?failed|\bnot ok \d+/,
    3,
  ],
  [
    /cannot find symbol|cannot be resolved|undefined reference|No such file or directory|not found|Could not resolve|incompatible types|does not exist|unsafe repository|Permission denied|is not defined|is unused|not declared|no match|unexpected|invalid|missing|undefined|mismatch|timed? ?out/i,
    2.5,
  ],
  [/^\s*[\w./\\-]+\.\w+:\d+(:\d+)?:?\s+\S|^\s*\d+:\d+\s+(error|warning)\s/, 2],
  [
    /marked build as failure|failure status|went wrong|another exception occurred|\b(unable to|could not|couldn't|cannot|can't|refused|denied|forbidden)\b/i,
    2,
  ],
  [
    /exit(ed)? (with )?(code|status) [1-9]|Process completed with exit code [1-9]|returned non-zero|Tests run:.*(Failures|Errors): [1-9]/i,
    2,
  ],
  [/\b(warning|deprecated)\b/i, 0.5],
];

const GENERIC_CONTINUATION =
  /^(\s+\S|\s*at\s|\s*\.\.\. \d+ more|\s*Caused( by)?:?|\s*Also:|\s*\[ERROR\]|\s*(symbol|location|required|found|reason|Expected|Actual|expected|actual|but was|code|stacktrace|left|right):|\s*E\s|\s*>|\s*[-+] |\s*\^|\s*~+\^?|\s*from\s|.*:\d+:in\s|.*\b(created|thrown|raised) at$)/;

export const CONTINUATION = { test: (line: string) => GENERIC_CONTINUATION.test(line) || TOOL_CONTINUATION.test(line) };

/** Ordinary progress lines end an error block. */
export const CALM =
  /^\s*(\[INFO\]|\[WARNING\]|Downloading|Downloaded|Progress|Running |Finished:|> git |\$ |##\[(group|endgroup)\]|travis_|Installing |Fetching |Collecting |Requirement already|Resolving |Receiving |Unpacking |Compiling |Building |\d+%|\.{3,}$)/;

/**
 * A shell command the CI runner echoes before it runs it: the start of a step. npm's `> pkg@1.0.0 test`
 * and `> mocha test` are commands; Gradle's `> Task :test` and `> There were failing tests.` (capitalised
 * words) are not, and taking them for one cut the failing test's report out of the step.
 */
export const STEP_START = /^\s*(\$ \S|##\[group\]Run |\+ \S|> [^A-Z\s]\S*\s\S)|^\[[^\]]+\] \$ \S/;
/** The step ended in failure: the runner's report of a non-zero exit status. */
export const STEP_FAILED =
  /\bexited with [1-9]\d*\b|exit(ed)? (with )?(code|status):? [1-9]|Process completed with exit code [1-9]|returned (a )?non-zero|\bError: Process completed|^Build step '.*' marked build as failure/i;
/** Lines the CI system adds after the failure, not part of it. */
export const EPILOGUE =
  /^\s*(Done\. Your build exited with|Your build has been stopped|after_failure|Cleaning up|Post job cleanup|Uploading artifacts|Finished: FAILURE|##\[(group|endgroup)\]|travis_)/;

export function lineSignal(line: string): number {
  let score = toolSignal(line);
  for (const [pattern, weight] of SIGNALS) if (weight > score && pattern.test(line)) score = weight;
  return score;
}

/** The line's template: what stays when the values a tool fills in are masked. */
export function lineTemplate(clean: string): string {
  return (
    clean
      .slice(0, 200)
      .replace(/"[^"]*"|'[^']*'|`[^`]*`/g, "<v>")
      // From a token's start only: tried at every character, a slash-less line costs its length squared.
      .replace(/(?<![\w.-])[\w.-]*[/\\][\w./\\-]*/g, "<p>")
      .replace(/\b[0-9a-f]{7,40}\b/gi, "<h>")
      .replace(/\d+([.:]\d+)*/g, "0")
      .replace(/\s+/g, " ")
      .trim()
  );
}
