// The failure digest of a raw CI log (the "serialization" of techniques.md §4): the lines
// that say why the build failed, grouped in blocks with their continuation lines, within
// a line budget. Lines also present in a passing log of the same job are demoted: they
// are not the failure.
import { cleanLogLine, normaliseLogLine, splitLogLines } from "./clean-log-line.ts";

export type LogDigest = {
  text: string;
  /** 1-based numbers of the log lines the digest shows. */
  lines: number[];
  logLines: number;
};

export type LogDigestOptions = { passLog?: string | undefined; maxLines?: number; maxLineChars?: number; maxBlockLines?: number };

const SIGNALS: Array<[RegExp, number]> = [
  [/\b(BUILD FAILURE|FAILURE: Build failed|Build failed|COMPILATION ERROR)\b/i, 5],
  [/^\s*\[ERROR\]|^\s*ERROR[:\s]|##\[error\]|^\s*npm ERR!|^\s*error(\[E\d+\])?:|^\s*E\s{2,}|^\s*fatal:/, 4],
  [/\b(FAILED|FAIL|FAILURES?|Failures?: [1-9]|Errors: [1-9]|failed)\b/, 3],
  [/\b\w*(Exception|Error)\b(?!s?: 0)|Traceback \(most recent call last\)|panic:|Segmentation fault|AssertionError|assert(ion)? failed/, 3],
  [/cannot find symbol|cannot be resolved|undefined reference|No such file or directory|not found|Could not resolve|incompatible types|does not exist|unsafe repository/i, 3],
  [/marked build as failure|failure status|went wrong|another exception occurred|\b(unable to|could not|couldn't|cannot|can't)\b/i, 2],
  [/exit(ed)? (with )?(code|status) [1-9]|Process completed with exit code [1-9]|returned non-zero|Tests run:.*(Failures|Errors): [1-9]/i, 2],
  [/\bwarning\b/i, 0.5],
];

const CONTINUATION =
  /^(\s+\S|\s*at\s|\s*\.\.\. \d+ more|\s*Caused( by)?:?|\s*Also:|\s*\[ERROR\]|\s*(symbol|location|required|found|reason|Expected|Actual|expected|actual|but was):|\s*E\s|\s*>|\s*[-+] |\s*\^|.*\b(created|thrown|raised) at$)/;
/** Ordinary progress lines end an error block. */
const CALM = /^\s*(\[INFO\]|\[WARNING\]|Downloading|Downloaded|Progress|Running |Finished:|> git |\$ |##\[(group|endgroup)\])/;

export function digestLog(failLog: string, options: LogDigestOptions = {}): LogDigest {
  const maxLines = options.maxLines ?? 60;
  const maxLineChars = options.maxLineChars ?? 240;
  const maxBlock = options.maxBlockLines ?? 80;
  const raw = splitLogLines(failLog);
  const clean = raw.map(cleanLogLine);
  const inPass = new Set(options.passLog ? splitLogLines(options.passLog).map(normaliseLogLine) : []);
  const seen = new Map<string, number>();
  const scores = clean.map((line, i) => {
    if (!line.trim()) return 0;
    const norm = normaliseLogLine(raw[i] ?? "");
    if (inPass.has(norm)) return 0;
    let score = 0;
    for (const [pattern, weight] of SIGNALS) if (pattern.test(line)) score = Math.max(score, weight);
    // The same message again (a summary repeating a compile error) says less the second time.
    const times = seen.get(norm) ?? 0;
    seen.set(norm, times + 1);
    return times > 0 ? score * 0.8 : score;
  });

  const blocks: Array<{ start: number; end: number; score: number }> = [];
  for (let i = 0; i < clean.length; i++) {
    if ((scores[i] ?? 0) < 2) continue;
    const belongs = (j: number) => {
      const text = clean[j] ?? "";
      return !CALM.test(text) && ((scores[j] ?? 0) >= 1 || CONTINUATION.test(text));
    };
    let end = i;
    while (end + 1 < clean.length && end - i < maxBlock - 1) {
      if (belongs(end + 1)) end++;
      // Bridge one or two plain lines ("To fix this, run:", a blank) inside a message.
      else if (!CALM.test(clean[end + 1] ?? "") && belongs(end + 2) && end + 2 - i < maxBlock) end += 2;
      else if (!CALM.test(clean[end + 1] ?? "") && !CALM.test(clean[end + 2] ?? "") && belongs(end + 3) && end + 3 - i < maxBlock) end += 3;
      else break;
    }
    const last = blocks.at(-1);
    const score = Math.max(...scores.slice(i, end + 1));
    if (last && i <= last.end + 1) {
      last.end = Math.max(last.end, end);
      last.score = Math.max(last.score, score);
    } else {
      blocks.push({ start: i, end, score });
    }
    i = end;
  }

  // Best blocks first within the budget, shown in log order; a block larger than the
  // budget that is left keeps its head.
  const chosen: Array<{ start: number; end: number }> = [];
  let budget = maxLines;
  for (const block of [...blocks].sort((a, b) => b.score - a.score || b.start - a.start)) {
    if (budget <= 1) break;
    const size = block.end - block.start + 1;
    const take = Math.min(size, budget - 1);
    chosen.push({ start: block.start, end: block.start + take - 1 });
    budget -= take + 1;
  }
  chosen.sort((a, b) => a.start - b.start);

  const out: string[] = [];
  const lines: number[] = [];
  for (const block of chosen) {
    out.push(`--- log lines ${block.start + 1}-${block.end + 1} ---`);
    for (let i = block.start; i <= block.end; i++) {
      const text = clean[i] ?? "";
      out.push(text.length > maxLineChars ? `${text.slice(0, maxLineChars)}… (${text.length} chars)` : text);
      lines.push(i + 1);
    }
  }
  if (chosen.length === 0) out.push("(no error lines found in the log)");
  return { text: out.join("\n"), lines, logLines: raw.length };
}
