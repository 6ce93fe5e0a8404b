// Checks that a body is one JSON object (RFC 8259 syntax) without building it: the
// ingress answers a malformed delivery 400 at once, yet does not allocate a parse of every
// body it stores (the inbox parses each one when it handles it). Iterative, so deep
// nesting cannot overflow the stack. Byte sequences that are not UTF-8 are left to the
// decoder (they become U+FFFD, as JSON.parse of the decoded text would see them).

export type JsonShape = "object" | "not-object" | "invalid";

const WS = new Set([0x20, 0x09, 0x0a, 0x0d]);
const ESCAPES = new Set([0x22, 0x5c, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const isDigit = (b: number | undefined) => b !== undefined && b >= 0x30 && b <= 0x39;
const isHex = (b: number | undefined) =>
  b !== undefined && (isDigit(b) || (b >= 0x41 && b <= 0x46) || (b >= 0x61 && b <= 0x66));
const LITERALS: Array<[number, Buffer]> = [
  [0x74, Buffer.from("true")],
  [0x66, Buffer.from("false")],
  [0x6e, Buffer.from("null")],
];

/** The index after the string starting at `i` (a quote), or -1. */
function skipString(buf: Buffer, i: number): number {
  let j = i + 1;
  for (;;) {
    const b = buf[j];
    if (b === undefined || b < 0x20) return -1;
    if (b === 0x22) return j + 1;
    if (b === 0x5c) {
      const e = buf[j + 1];
      if (e === 0x75) {
        if (!(isHex(buf[j + 2]) && isHex(buf[j + 3]) && isHex(buf[j + 4]) && isHex(buf[j + 5]))) return -1;
        j += 6;
      } else if (e !== undefined && ESCAPES.has(e)) j += 2;
      else return -1;
    } else j++;
  }
}

/** The index after the number starting at `i`, or -1. */
function skipNumber(buf: Buffer, i: number): number {
  let j = i;
  if (buf[j] === 0x2d) j++;
  if (buf[j] === 0x30) j++;
  else if (isDigit(buf[j])) while (isDigit(buf[j])) j++;
  else return -1;
  if (buf[j] === 0x2e) {
    j++;
    if (!isDigit(buf[j])) return -1;
    while (isDigit(buf[j])) j++;
  }
  if (buf[j] === 0x65 || buf[j] === 0x45) {
    j++;
    if (buf[j] === 0x2b || buf[j] === 0x2d) j++;
    if (!isDigit(buf[j])) return -1;
    while (isDigit(buf[j])) j++;
  }
  return j;
}

/** The index after the scalar (string, number, literal) at `i`, or -1. */
function skipScalar(buf: Buffer, i: number): number {
  const b = buf[i];
  if (b === 0x22) return skipString(buf, i);
  if (b === 0x2d || isDigit(b)) return skipNumber(buf, i);
  for (const [first, word] of LITERALS)
    if (b === first) return buf.subarray(i, i + word.length).equals(word) ? i + word.length : -1;
  return -1;
}

export function jsonShape(buf: Buffer): JsonShape {
  let i = 0;
  const skipWs = () => {
    while (i < buf.length && WS.has(buf[i] as number)) i++;
  };
  skipWs();
  const first = buf[i];
  // Open containers: true for an object, false for an array.
  const stack: boolean[] = [];
  // What may come next: a value, a value or the array's end, a key, a key or the object's end, or what follows a value.
  let want: "value" | "value-or-end" | "key" | "key-or-end" | "after" = "value";
  for (;;) {
    skipWs();
    const b = buf[i];
    if (want === "after") {
      if (stack.length === 0) {
        if (i !== buf.length) return "invalid";
        return first === 0x7b ? "object" : "not-object";
      }
      const inObject = stack.at(-1) as boolean;
      if (b === 0x2c) {
        i++;
        want = inObject ? "key" : "value";
      } else if (b === (inObject ? 0x7d : 0x5d)) {
        i++;
        stack.pop();
      } else return "invalid";
      continue;
    }
    if (want === "key" || want === "key-or-end") {
      if (want === "key-or-end" && b === 0x7d) {
        i++;
        stack.pop();
        want = "after";
        continue;
      }
      if (b !== 0x22) return "invalid";
      i = skipString(buf, i);
      if (i < 0) return "invalid";
      skipWs();
      if (buf[i] !== 0x3a) return "invalid";
      i++;
      want = "value";
      continue;
    }
    // A value (or, right after "[", the array's end).
    if (want === "value-or-end" && b === 0x5d) {
      i++;
      stack.pop();
      want = "after";
    } else if (b === 0x7b) {
      i++;
      stack.push(true);
      want = "key-or-end";
    } else if (b === 0x5b) {
      i++;
      stack.push(false);
      want = "value-or-end";
    } else {
      i = skipScalar(buf, i);
      if (i < 0) return "invalid";
      want = "after";
    }
  }
}
