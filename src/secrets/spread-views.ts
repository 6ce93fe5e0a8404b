// More views of a text for the scrubber, each built in one pass: escapes decoded (a secret
// written as JSON/JS `\u0061` or `\x61`, any mix with plain characters), whitespace dropped (a
// secret with blanks or line breaks between its characters, a hex dump), and every other
// character (a secret with any one separator between its characters: "a b c", "a-b-c").
// Like joined-lines.ts, each view maps a range found in it back to the original text.
import type { JoinedView } from "./joined-lines.ts";

export type TextView = JoinedView;

/** The views of this text worth searching besides the text itself and its joined views, made one at a time
 * (each is a copy of the text: a caller searching one and dropping it holds one at once). */
export function* spreadViews(text: string): Generator<TextView> {
  const unescaped = unescapedView(text);
  if (unescaped) yield unescaped;
  const compact = withoutWhitespace(text);
  if (compact) yield compact;
  for (const parity of [0, 1]) {
    const view = everyOther(text, parity);
    if (view) yield view;
  }
}

const BACKSLASH = 92;

/** The width of an escape starting here that this view decodes, 0 for none. */
function escapeWidth(text: string, at: number): number {
  if (text.charCodeAt(at) !== BACKSLASH) return 0;
  const next = text.charCodeAt(at + 1);
  if (next === 117 /* u */) return hexDigits(text, at + 2, 4) ? 6 : 0;
  if (next === 120 /* x */) return hexDigits(text, at + 2, 2) ? 4 : 0;
  // \" \/ \\: JSON writes a secret's quote, slash or backslash so, beside \u escapes of its other characters.
  return next === 34 || next === 47 || next === BACKSLASH ? 2 : 0;
}

function hexDigits(text: string, at: number, count: number): boolean {
  for (let i = at; i < at + count; i++) {
    const code = text.charCodeAt(i) | 0x20;
    if (!((code >= 48 && code <= 57) || (code >= 97 && code <= 102))) return false;
  }
  return true;
}

function unescapedView(text: string): TextView | undefined {
  if (!text.includes("\\")) return undefined;
  const kept = new Uint16Array(text.length);
  const origin = new Int32Array(text.length);
  let length = 0;
  let decoded = false;
  for (let i = 0; i < text.length;) {
    const width = escapeWidth(text, i);
    origin[length] = i;
    if (width === 0) {
      kept[length++] = text.charCodeAt(i);
      i += 1;
      continue;
    }
    decoded = true;
    kept[length++] = width === 2 ? text.charCodeAt(i + 1) : Number.parseInt(text.slice(i + 2, i + width), 16);
    i += width;
  }
  if (!decoded) return undefined;
  return {
    text: decode(kept, length),
    toOriginal: ([start, end]) => {
      const last = origin[end - 1] ?? 0;
      return [origin[start] ?? 0, last + Math.max(1, escapeWidth(text, last))];
    },
  };
}

// Blanks, line breaks, form feeds and the no-break space.
function isWhitespace(code: number): boolean {
  return code === 32 || (code >= 9 && code <= 13) || code === 160;
}

function withoutWhitespace(text: string): TextView | undefined {
  let first = 0;
  while (first < text.length && !isWhitespace(text.charCodeAt(first))) first++;
  if (first === text.length) return undefined;
  const kept = new Uint16Array(text.length);
  const origin = new Int32Array(text.length);
  let length = 0;
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (isWhitespace(code)) continue;
    origin[length] = i;
    kept[length++] = code;
  }
  return { text: decode(kept, length), toOriginal: ([start, end]) => [origin[start] ?? 0, (origin[end - 1] ?? 0) + 1] };
}

/** The characters at even positions (parity 0) or at odd ones. */
function everyOther(text: string, parity: number): TextView | undefined {
  // Shorter than the shortest form (8 characters) with a separator after each but the last: nothing to find.
  if (text.length < 15) return undefined;
  const kept = new Uint16Array((text.length - parity + 1) >> 1);
  for (let i = parity, j = 0; i < text.length; i += 2, j++) kept[j] = text.charCodeAt(i);
  return {
    text: decode(kept, kept.length),
    toOriginal: ([start, end]) => [2 * start + parity, 2 * (end - 1) + parity + 1],
  };
}

// One code unit per code unit (a lone surrogate becomes U+FFFD), so positions hold.
function decode(units: Uint16Array, length: number): string {
  return new TextDecoder("utf-16le").decode(units.subarray(0, length));
}
