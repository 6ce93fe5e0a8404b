// A text read with its line breaks undone, so a secret wrapped over lines (base64 folded at
// 76 columns, a PEM indented in YAML or escaped in JSON, a token pasted as "…" + "…") reads
// as one run again. Each view remembers where its characters came from, so the caller
// replaces in the original text and keeps everything the secret did not cover.
import type { Range } from "./literal-matcher.ts";

export type JoinedView = { text: string; toOriginal: (range: Range) => Range };

// Where a break may start; the break and the blanks around it are then read char by char,
// not with a regex: one like /[ \t]*\n/ is quadratic on a long run of blanks.
const BREAK_START = /[\n\r\\]/g;
// GitHub Actions starts every log line with one.
const TIMESTAMP = /\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z ?/y;

/**
 * The views of this text that differ from it (none for a text on one line): one that drops
 * line breaks and the indentation around them, and one that also drops string
 * concatenation ("…" +, implicit "…" "…", a diff's +/- column). The first keeps a "+" that
 * folded base64 may start or end a line with.
 */
export function joinedViews(text: string): JoinedView[] {
  const lines = joinedView(text, false);
  if (!lines) return [];
  const code = joinedView(text, true);
  return code ? [lines, code] : [lines];
}

function joinedView(text: string, concatenation: boolean): JoinedView | undefined {
  // Piece i of the view starts at viewStarts[i] there and at originStarts[i] in the text.
  const viewStarts = [0];
  const originStarts = [0];
  // The kept characters, copied one by one: a log with a break every few characters would
  // otherwise be a million small slices to allocate and join.
  let kept: Uint16Array | undefined;
  let from = 0;
  let length = 0;
  // Without any concatenation next to a break, the second view would equal the first.
  let concatenated = false;
  BREAK_START.lastIndex = 0;
  while (BREAK_START.test(text)) {
    const at = BREAK_START.lastIndex - 1;
    const found = breakAt(text, at);
    if (found === 0) continue;
    const lineStart = blanksBefore(text, at, from);
    const start =
      concatenation && !escaped(text, at)
        ? oneBefore(
            text,
            blanksBefore(text, oneBefore(text, lineStart, from, PLUS, PLUS), from),
            from,
            QUOTE,
            APOSTROPHE,
          )
        : lineStart;
    if (start !== lineStart) concatenated = true;
    let end = at + found;
    for (let last = at; ;) {
      // Blank lines, the common case of a run of breaks.
      while (text.charCodeAt(end) === 10) last = end++;
      const code = text.charCodeAt(end);
      if (code >= 48 && code <= 57) {
        TIMESTAMP.lastIndex = end;
        if (TIMESTAMP.test(text)) end = TIMESTAMP.lastIndex;
      }
      end = blanksAfter(text, end);
      if (concatenation && !escaped(text, last)) {
        const lineEnd = end;
        end = blanksAfter(text, oneAfter(text, blanksAfter(text, oneAfter(text, end, PLUS, MINUS)), PLUS, PLUS));
        if (end !== lineEnd) concatenated = true;
      }
      const next = breakAt(text, end);
      if (next === 0) {
        if (concatenation && !escaped(text, last)) {
          const quoted = oneAfter(text, end, QUOTE, APOSTROPHE);
          if (quoted !== end) concatenated = true;
          end = quoted;
        }
        break;
      }
      last = end;
      end += next;
    }
    kept ??= new Uint16Array(text.length);
    for (let i = from; i < start; i++) kept[length++] = text.charCodeAt(i);
    from = end;
    viewStarts.push(length);
    originStarts.push(from);
    BREAK_START.lastIndex = end;
  }
  if (!kept || (concatenation && !concatenated)) return undefined;
  for (let i = from; i < text.length; i++) kept[length++] = text.charCodeAt(i);
  const origin = (at: number): number => {
    let low = 0;
    let high = viewStarts.length - 1;
    while (low < high) {
      const mid = (low + high + 1) >> 1;
      if ((viewStarts[mid] ?? 0) <= at) low = mid;
      else high = mid - 1;
    }
    return (originStarts[low] ?? 0) + at - (viewStarts[low] ?? 0);
  };
  // Decoding keeps one code unit per code unit (a lone surrogate becomes U+FFFD), so positions hold.
  return {
    text: new TextDecoder("utf-16le").decode(kept.subarray(0, length)),
    toOriginal: ([start, end]) => [origin(start), origin(end - 1) + 1],
  };
}

/** The length of the line break at this position, 0 if there is none: a real one, a JSON/C
 * escape of one, or a shell continuation (a backslash ending the line). */
function breakAt(text: string, at: number): number {
  const code = text.charCodeAt(at);
  if (code === 10) return 1;
  if (code === 13) return text.charCodeAt(at + 1) === 10 ? 2 : 1;
  if (code !== 92) return 0;
  const next = text.charCodeAt(at + 1);
  if (next === 10 || next === 110) return 2;
  if (next === 13) return text.charCodeAt(at + 2) === 10 ? 3 : 0;
  if (next === 114) return text.startsWith("\\n", at + 2) ? 4 : 0;
  return 0;
}

/** Whether the break here is an escaped one (\n inside a string literal): no concatenation can sit next to it,
 * and a "+" there belongs to the string (base64 lines often start or end with one). */
function escaped(text: string, at: number): boolean {
  const next = text.charCodeAt(at + 1);
  return text.charCodeAt(at) === 92 && next !== 10 && next !== 13;
}

const PLUS = 43;
const MINUS = 45;
const QUOTE = 34;
const APOSTROPHE = 39;

// Plain loops over char codes, not a predicate argument: these run once per character of a
// log that may be all line breaks.
function blanksBefore(text: string, at: number, floor: number): number {
  let i = at;
  for (let code = text.charCodeAt(i - 1); i > floor && (code === 32 || code === 9); code = text.charCodeAt(--i - 1));
  return i;
}

function blanksAfter(text: string, at: number): number {
  let i = at;
  for (let code = text.charCodeAt(i); code === 32 || code === 9; code = text.charCodeAt(++i));
  return i;
}

/** Before `at` (not before `floor`), past one character that is a or b. */
function oneBefore(text: string, at: number, floor: number, a: number, b: number): number {
  const code = text.charCodeAt(at - 1);
  return at > floor && (code === a || code === b) ? at - 1 : at;
}

function oneAfter(text: string, at: number, a: number, b: number): number {
  const code = text.charCodeAt(at);
  return code === a || code === b ? at + 1 : at;
}
