// The failure digest of a raw CI log (the "serialization" of techniques.md §4): the lines
// that say why the build failed, grouped in blocks with their continuation lines, within
// a line budget. It learns from the structure every log has rather than from one tool's
// words: the last step that ran and failed (its command, the lines at its end), lines rare in
// this log (templates counted over the whole log; a message printed a hundred times is
// progress, not the failure), diagnostic and stack-trace shapes, and error vocabulary as one
// signal among these. Lines also present in a passing log of the same job are demoted.
//
// One pass, bounded memory: lines are read in segments, each segment's blocks are scored and
// only the best ones kept, with a small window of the latest lines for the failing step's
// tail. `digestLogStream` reads a log of any size from a stream.
import { cleanLogLine, maskCleanLine, splitLogLines } from "./clean-log-line.ts";
import { CALM, CONTINUATION, EPILOGUE, lineSignal, lineTemplate, STEP_FAILED, STEP_START } from "./log-line-signals.ts";

export type LogDigest = {
  text: string;
  /** 1-based numbers of the log lines the digest shows. */
  lines: number[];
  logLines: number;
};

export type LogDigestOptions = {
  passLog?: string | undefined;
  maxLines?: number;
  maxLineChars?: number;
  maxBlockLines?: number;
};

/** `passed`: the passing log has this line too. `overwritten`: a progress frame the terminal redrew. */
type Line = {
  n: number;
  text: string;
  chars: number;
  score: number;
  template: string;
  passed: boolean;
  overwritten: boolean;
};
type Block = { lines: Line[]; end: number; score: number; kind: "signal" | "tail" | "command" };

const SEGMENT = 4096;
const KEEP_BLOCKS = 256;
const MAX_TEMPLATES = 50_000;
const TAIL_WINDOW = 64;
const TAIL_LINES = 16;
/** Weights of where a block sits (tuned on logchunks-dev and cidiff, see docs/evaluation.md). */
const P = {
  inStep: 1,
  nearEnd: 1.5,
  scale: 40,
  before: 0.6,
  tail: 1,
  command: 3,
  lastTail: 1.2,
  lastLines: 3,
  firstDiagnostic: 1,
};
const LEAD_LINES = 2;
const FRAMES_KEPT = 12;
const CURSOR_UP = new RegExp(`${String.fromCharCode(27)}\\[\\d*A`);
/** A stack frame, also behind a build tool's level prefix (sbt's `[error] \tat …`). */
const FRAME = /^(\[\w+\]\s)?(\s*(at\s|from\s|\.\.\. \d+ more)|\s+\S+:\d+:\s*(\(|in\s)|\s*File ".*", line \d+)/;
/** A compiler's diagnostic `path:line[:col]:`, also behind a level prefix (`[error] src/A.scala:3:5: …`). */
const DIAGNOSTIC = /^(\[\w+\]\s+)?\s*[\w./\\-]+\.\w+:\d+(:\d+)?:/;
const MAX_DIAGNOSTICS = 1024;

export class LogDigester {
  private readonly maxLines: number;
  private readonly maxLineChars: number;
  private readonly maxBlock: number;
  private readonly inPass: Set<string>;
  private readonly templates = new Map<string, number>();
  private readonly seen = new Set<string>();
  private segment: Line[] = [];
  private blocks: Block[] = [];
  private recent: Line[] = [];
  private count = 0;
  private lastCommand: Line | undefined;
  private failedStep: { command: Line | undefined; tail: Line[]; exit: Line } | undefined;
  /** The first compiler diagnostic after each step's start: later ones often follow from it. */
  private readonly firstDiagnostics: number[] = [];
  private awaitingDiagnostic = true;

  constructor(options: LogDigestOptions = {}) {
    this.maxLines = options.maxLines ?? 60;
    this.maxLineChars = options.maxLineChars ?? 240;
    this.maxBlock = options.maxBlockLines ?? 80;
    this.inPass = new Set(
      options.passLog
        ? splitLogLines(options.passLog).map((l) => maskCleanLine(cleanLogLine(l).slice(0, 4 * this.maxLineChars)))
        : [],
    );
  }

  /**
   * One line of the log. `overwritten`: the line ended in a lone carriage return and more text
   * followed on the same terminal line (a progress bar or counter redrawn in place): nobody saw
   * it, so it is counted but never shown and never starts or continues a message.
   */
  push(rawLine: string, overwritten = false): void {
    const n = ++this.count;
    // A line that starts by moving the cursor up redraws the line above (a progress bar in place).
    if (CURSOR_UP.test(rawLine.slice(0, 64))) this.overwrite(this.segment.at(-1));
    const whole = cleanLogLine(rawLine);
    const text = whole.slice(0, 4 * this.maxLineChars);
    const template = lineTemplate(text);
    if (overwritten) {
      const line: Line = { n, text: "", chars: 0, score: 0, template: "", passed: false, overwritten: true };
      this.recent.push(line);
      if (this.recent.length > TAIL_WINDOW) this.recent.shift();
      this.segment.push(line);
      if (this.segment.length >= SEGMENT) this.flush();
      return;
    }
    if (text.trim()) {
      const times = this.templates.get(template);
      if (times !== undefined) this.templates.set(template, times + 1);
      else if (this.templates.size < MAX_TEMPLATES) this.templates.set(detach(template), 1);
    }
    let score = 0;
    const masked = this.inPass.size > 0 ? maskCleanLine(text) : undefined;
    const passed = masked !== undefined && this.inPass.has(masked);
    if (text.trim() && !passed) {
      score = lineSignal(text);
      // The same message again (a summary repeating a compile error) says less the second time.
      if (score > 0) {
        const norm = masked ?? maskCleanLine(text);
        if (this.seen.has(norm)) score *= 0.8;
        else if (this.seen.size < MAX_TEMPLATES) this.seen.add(detach(norm));
      }
    }
    const line: Line = { n, text, chars: whole.length, score, template, passed, overwritten: false };
    if (
      this.awaitingDiagnostic &&
      score >= 4 &&
      DIAGNOSTIC.test(text) &&
      this.firstDiagnostics.length < MAX_DIAGNOSTICS
    ) {
      this.firstDiagnostics.push(n);
      this.awaitingDiagnostic = false;
    }
    if (STEP_FAILED.test(text) && !EPILOGUE.test(text)) {
      const tail = this.recent.filter(
        (l) =>
          l.text.trim() &&
          !l.passed &&
          !EPILOGUE.test(l.text) &&
          !STEP_FAILED.test(l.text) &&
          (!this.lastCommand || l.n > this.lastCommand.n),
      );
      this.failedStep = { command: this.lastCommand, tail: tail.map(kept), exit: kept(line) };
    } else if (STEP_START.test(text)) {
      this.lastCommand = kept(line);
      this.awaitingDiagnostic = true;
    }
    this.recent.push(line);
    if (this.recent.length > TAIL_WINDOW) this.recent.shift();
    this.segment.push(line);
    if (this.segment.length >= SEGMENT) this.flush();
  }

  private overwrite(line: Line | undefined): void {
    if (!line || line.overwritten) return;
    const times = this.templates.get(line.template);
    if (times !== undefined) this.templates.set(line.template, times - 1);
    Object.assign(line, { text: "", chars: 0, score: 0, template: "", overwritten: true });
  }

  private flush(): void {
    const seg = this.segment;
    this.segment = [];
    const belongs = (j: number) => {
      const l = seg[j];
      return l !== undefined && !l.overwritten && !CALM.test(l.text) && (l.score >= 1 || CONTINUATION.test(l.text));
    };
    const calm = (j: number) => seg[j]?.overwritten === true || CALM.test(seg[j]?.text ?? "");
    for (let i = 0; i < seg.length; i++) {
      if ((seg[i]?.score ?? 0) < 2) continue;
      let end = i;
      while (end + 1 < seg.length && end - i < this.maxBlock - 1) {
        if (belongs(end + 1)) end++;
        // Bridge one or two plain lines ("To fix this, run:", a blank) inside a message.
        else if (!calm(end + 1) && belongs(end + 2) && end + 2 - i < this.maxBlock) end += 2;
        else if (!calm(end + 1) && !calm(end + 2) && belongs(end + 3) && end + 3 - i < this.maxBlock) end += 3;
        else break;
      }
      // A message's heading (the failing test's name above an indented error) comes with it.
      let start = i;
      while (start > 0 && i - start < LEAD_LINES && leadIn(seg[start - 1], seg[i])) {
        start--;
        if (indentOf(seg[start]?.text ?? "") < indentOf(seg[i]?.text ?? "")) break;
      }
      const lines = foldFrames(seg.slice(start, end + 1)).map(kept);
      const last = this.blocks.at(-1);
      const first = lines[0]?.n ?? 0;
      const lastN = lines.at(-1)?.n ?? 0;
      // Adjacent blocks are one message; beyond maxBlock lines only its head is kept.
      if (last && first <= last.end + 1) {
        last.lines.push(...lines.slice(0, Math.max(0, this.maxBlock - last.lines.length)));
        last.end = lastN;
      } else this.blocks.push({ lines, end: lastN, score: 0, kind: "signal" });
      i = end;
    }
    if (this.blocks.length > KEEP_BLOCKS) {
      // Keep the most telling blocks; among equals the later ones (failures come last).
      const ranked = [...this.blocks].sort(
        (a, b) => this.baseScore(b) - this.baseScore(a) || (b.lines[0]?.n ?? 0) - (a.lines[0]?.n ?? 0),
      );
      const keep = new Set(ranked.slice(0, KEEP_BLOCKS / 2));
      this.blocks = this.blocks.filter((b) => keep.has(b));
    }
  }

  /** How rare a line's template is in this log: 1 for a one-off, down to 0.35 for a refrain. */
  private rarity(line: Line): number {
    const times = this.templates.get(line.template) ?? 1;
    return times <= 2 ? 1 : times <= 10 ? 0.8 : times <= 100 ? 0.6 : 0.35;
  }

  private baseScore(block: Block): number {
    let best = 0;
    for (const l of block.lines) best = Math.max(best, l.score * this.rarity(l));
    return best;
  }

  finish(): LogDigest {
    this.flush();
    const step = this.failedStep;
    const stepStart = step?.command?.n ?? this.lastCommand?.n ?? Math.max(1, this.count - 200);
    const stepEnd = step?.exit.n ?? this.count;
    const firstDiagnostic = this.firstDiagnostics.find((n) => n >= stepStart && n <= stepEnd);
    const candidates: Block[] = this.blocks.map((b) => {
      const first = b.lines[0]?.n ?? 0;
      const last = b.lines.at(-1)?.n ?? 0;
      let score = this.baseScore(b);
      // Inside the step that failed, and the nearer its end the more likely the reason.
      if (first >= stepStart && last <= stepEnd) score += P.inStep + P.nearEnd / (1 + (stepEnd - last) / P.scale);
      else if (last < stepStart) score *= P.before;
      // A compiler's first error in the failing step: the errors after it often follow from it.
      if (firstDiagnostic !== undefined && first <= firstDiagnostic && firstDiagnostic <= last)
        score += P.firstDiagnostic;
      return { ...b, score };
    });
    if (step) {
      const tail = step.tail.filter((l) => this.rarity(l) >= 0.8 || l.score >= 2).slice(-TAIL_LINES);
      const shown = (l: Line) => candidates.some((c) => c.lines.some((k) => k.n === l.n));
      // The last lines the failing step printed, then the few before them.
      const last = tail.slice(-P.lastLines).filter((l) => !shown(l));
      const before = tail.slice(0, -P.lastLines).filter((l) => !shown(l));
      if (last.length > 0) candidates.push({ lines: last, end: last.at(-1)?.n ?? 0, score: P.lastTail, kind: "tail" });
      if (before.length > 0)
        candidates.push({ lines: before, end: before.at(-1)?.n ?? 0, score: P.tail, kind: "tail" });
      // The last command that ran and the runner's word that it failed, with its exit status.
      const said = [step.command, step.exit].filter((l): l is Line => l !== undefined && !shown(l));
      if (said.length > 0) candidates.push({ lines: said, end: step.exit.n, score: P.command, kind: "command" });
    }

    // Best blocks first within the budget, shown in log order; a block larger than the
    // budget that is left keeps its head (a tail keeps its end).
    const chosen: Line[][] = [];
    let budget = this.maxLines;
    for (const block of candidates.sort((a, b) => b.score - a.score || (b.lines[0]?.n ?? 0) - (a.lines[0]?.n ?? 0))) {
      // Each run of consecutive lines costs a header line too.
      let take = Math.min(block.lines.length, budget - 1);
      const part = () => (block.kind === "tail" ? block.lines.slice(-take) : block.lines.slice(0, take));
      while (take > 0 && take + contiguousRuns(part()).length > budget) take--;
      if (take <= 0) continue;
      const lines = part();
      chosen.push(lines);
      budget -= lines.length + contiguousRuns(lines).length;
    }
    const runs = contiguousRuns(chosen.flat());

    const out: string[] = [];
    const lines: number[] = [];
    for (const run of runs) {
      out.push(`--- log lines ${run[0]?.n}-${run.at(-1)?.n} ---`);
      for (const l of run) {
        out.push(l.chars > this.maxLineChars ? `${l.text.slice(0, this.maxLineChars)}… (${l.chars} chars)` : l.text);
        lines.push(l.n);
      }
    }
    if (runs.length === 0) out.push("(no error lines found in the log)");
    return { text: out.join("\n"), lines, logLines: this.count };
  }
}

/**
 * A copy of a string that does not hold on to the chunk it was cut from (V8 keeps a whole
 * parent string alive for each slice of it): what the digester keeps must not pin the log.
 */
function detach(s: string): string {
  return Buffer.from(s, "utf16le").toString("utf16le");
}

function kept(line: Line): Line {
  return { ...line, text: detach(line.text), template: detach(line.template) };
}

const indentOf = (t: string) => /^\s*/.exec(t)?.[0].length ?? 0;

/** A plain line just above an indented block, indented no deeper: the block's heading (ends at a shallower line). */
function leadIn(prev: Line | undefined, first: Line | undefined): boolean {
  if (!prev || !first || !prev.text.trim() || CALM.test(prev.text) || prev.score >= 2) return false;
  return indentOf(first.text) > 0 && indentOf(prev.text) <= indentOf(first.text);
}

/** A stack trace keeps its first frames: the rest say where the runtime was, not why. */
function foldFrames(lines: Line[]): Line[] {
  const out: Line[] = [];
  let frames = 0;
  for (const l of lines) {
    frames = FRAME.test(l.text) ? frames + 1 : 0;
    if (frames <= FRAMES_KEPT) out.push(l);
  }
  return out;
}

/** Lines in log order, deduplicated, cut where the numbers jump. */
function contiguousRuns(picked: Line[]): Line[][] {
  const byNumber = new Map(picked.map((l) => [l.n, l]));
  const runs: Line[][] = [];
  for (const l of [...byNumber.values()].sort((a, b) => a.n - b.n)) {
    const run = runs.at(-1);
    if (run && (run.at(-1)?.n ?? 0) + 1 === l.n) run.push(l);
    else runs.push([l]);
  }
  return runs;
}

/**
 * Universal newlines (\r\n, \n, lone \r), without splitting the whole text at once; each line
 * with whether it is overwritten (it ends in a lone \r and text follows on the same terminal line).
 */
function* logLines(text: string): Generator<[string, boolean]> {
  const re = /\r\n|\n|\r/g;
  let from = 0;
  for (let m = re.exec(text); m; m = re.exec(text)) {
    yield [text.slice(from, m.index), m[0] === "\r" && redrawn(text, re.lastIndex)];
    from = re.lastIndex;
  }
  yield [text.slice(from), false];
}

/** Text follows at `at` on the same terminal line (not a line end, not the end of the text). */
function redrawn(text: string, at: number): boolean {
  const next = text.charCodeAt(at);
  return at < text.length && next !== 10 && next !== 13;
}

export function digestLog(failLog: string, options: LogDigestOptions = {}): LogDigest {
  const digester = new LogDigester(options);
  for (const [line, overwritten] of logLines(failLog)) digester.push(line, overwritten);
  return digester.finish();
}

/** The digest of a log read from a stream of text or bytes (latin1), in bounded memory. */
export async function digestLogStream(
  chunks: AsyncIterable<string | Uint8Array>,
  options: LogDigestOptions = {},
): Promise<LogDigest> {
  const digester = new LogDigester(options);
  let carry = "";
  for await (const chunk of chunks) {
    const text = carry + (typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("latin1"));
    // A \r at the end may be the first half of \r\n: keep it for the next chunk.
    const cut = Math.max(text.lastIndexOf("\n"), text.endsWith("\r") ? -1 : text.lastIndexOf("\r"));
    if (cut < 0) {
      carry = text.length > 1 << 20 ? "" : text;
      if (text.length > 1 << 20) digester.push(text);
      continue;
    }
    // The lines ended up to `cut`; what follows a lone \r there is in `text` (see the \r kept above).
    const re = /\r\n|\n|\r/g;
    let from = 0;
    for (let m = re.exec(text); m && m.index <= cut; m = re.exec(text)) {
      digester.push(text.slice(from, m.index), m[0] === "\r" && redrawn(text, re.lastIndex));
      from = re.lastIndex;
    }
    carry = text.slice(from);
  }
  digester.push(carry);
  return digester.finish();
}
