// The ingress's JSON check must agree with JSON.parse of the decoded text on every input:
// a body it calls an object must parse to one (the inbox parses it later), and a body it
// refuses must not parse to one. Hand-picked edge cases, then mutations of real webhook
// payloads compared byte for byte.
import { describe, expect, it } from "vitest";
import { jsonShape } from "../../src/server/json-syntax.ts";
import { webhookExample } from "../support/webhook-examples.ts";

function expected(buf: Buffer): string {
  try {
    const value: unknown = JSON.parse(buf.toString("utf8"));
    return typeof value === "object" && value !== null && !Array.isArray(value) ? "object" : "not-object";
  } catch {
    return "invalid";
  }
}

const CASES = [
  "{}",
  " {\n} ",
  '{"a":1}',
  '{"a":[1,2,{"b":null}],"c":"x"}',
  "[]",
  "1",
  '"s"',
  "null",
  "true",
  "",
  " ",
  "{",
  "}",
  "{,}",
  '{"a"}',
  '{"a":}',
  '{"a":1,}',
  "[1,]",
  "[,1]",
  '{"a":1 "b":2}',
  "{} {}",
  "{}x",
  '{"a":01}',
  '{"a":-}',
  '{"a":1.}',
  '{"a":.5}',
  '{"a":1e}',
  '{"a":1e+5}',
  '{"a":-0.5E-3}',
  '{"a":tru}',
  '{"a":nul}',
  '{"a":truex}',
  '{"a":"\\u00e9"}',
  '{"a":"\\u00g9"}',
  '{"a":"\\x"}',
  '{"a":"\\/"}',
  '{"a":"tab\there"}',
  '{"a":"\u0001"}',
  '{"a":"é 😀"}',
  "\ufeff{}",
  '{"a":[[[[]]]]}',
  '{"a":[[[[]]]}',
  '{"a":{"b":{"c":{}}}}',
  "{'a':1}",
  '{"a":NaN}',
  '{"a":Infinity}',
  '{"a":1}\u0000',
];

describe("jsonShape", () => {
  it.each(CASES)("agrees with JSON.parse on %j", (text) => {
    const buf = Buffer.from(text, "utf8");
    expect(jsonShape(buf)).toBe(expected(buf));
  });

  it("agrees with JSON.parse on bytes that are not UTF-8", () => {
    for (const bytes of [
      [0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xc3, 0x22, 0x7d],
      [0x7b, 0xff, 0x7d],
      [0x7b, 0x22, 0xff, 0xfe, 0x22, 0x3a, 0x31, 0x7d],
    ]) {
      const buf = Buffer.from(bytes);
      expect(jsonShape(buf)).toBe(expected(buf));
    }
  });

  it("agrees with JSON.parse on thousands of mutations of real webhook payloads", () => {
    const bodies = [
      ["issues", "labeled"],
      ["issue_comment", "created"],
      ["workflow_run", "completed"],
      ["pull_request", "opened"],
    ].map(([event, action]) => Buffer.from(JSON.stringify(webhookExample(event as string, action))));
    // A fixed seed: the same mutations every run.
    let seed = 12345;
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed % n;
    };
    const alphabet = Buffer.from('{}[]:,"\\0123456789.eE+-truefalsn \t\nu');
    let objects = 0;
    let refused = 0;
    for (let k = 0; k < 4000; k++) {
      const base = bodies[k % bodies.length] as Buffer;
      const mutated = Buffer.from(base);
      const edits = 1 + rand(3);
      let buf: Buffer = mutated;
      for (let e = 0; e < edits; e++) {
        const at = rand(buf.length);
        const op = rand(3);
        const byte = alphabet[rand(alphabet.length)] as number;
        if (op === 0) buf = Buffer.concat([buf.subarray(0, at), buf.subarray(at + 1)]);
        else if (op === 1) buf = Buffer.concat([buf.subarray(0, at), Buffer.from([byte]), buf.subarray(at)]);
        else buf[at] = byte;
      }
      const want = expected(buf);
      expect(jsonShape(buf), buf.toString("utf8").slice(0, 200)).toBe(want);
      if (want === "object") objects++;
      else refused++;
    }
    // Both outcomes were exercised, many times.
    expect(objects).toBeGreaterThan(200);
    expect(refused).toBeGreaterThan(200);
  });

  it("answers nesting far deeper than a recursive parser could go, without throwing", () => {
    const deep = Buffer.from(`{"a":${"[".repeat(200_000)}${"]".repeat(200_000)}}`);
    expect(jsonShape(deep)).toBe("object");
    expect(jsonShape(Buffer.from(`{"a":${"[".repeat(200_000)}}`))).toBe("invalid");
  });

  it.each([
    ["form feed", "\f{}"],
    ["vertical tab", "{}\v"],
    ["no-break space", "\u00a0{}"],
    ["next line", '{"a":1\u0085}'],
    ["line separator", '{\u2028"a":1}'],
    ["ideographic space", "{}\u3000"],
    ["BOM after the object", "{}\ufeff"],
    ["raw NUL in a string", '{"a":"\u0000"}'],
    ["raw NUL between tokens", '{"a":\u00001}'],
    ["lone surrogate escapes", '{"a":"\\udc00\\ud800"}'],
    ["a huge exponent", '{"a":1e999999}'],
    ["a tiny exponent", '{"a":-1e-999999}'],
    ["a 400-digit integer", `{"a":${"9".repeat(400)}}`],
    ["deep objects", `{"a":${'{"a":'.repeat(100_000)}1${"}".repeat(100_000)}}`],
  ])("agrees with JSON.parse on %s", (_label, text) => {
    const buf = Buffer.from(text, "utf8");
    expect(jsonShape(buf)).toBe(expected(buf));
  });

  it("agrees with JSON.parse on overlong and invalid UTF-8 standing for a quote, a backslash or a control character", () => {
    // C0 A2 is an overlong '"', C1 9C an overlong backslash, C0 80 an overlong NUL, ED A0 80 an encoded surrogate: the decoder makes each U+FFFD.
    for (const hex of ["c0a2", "c19c", "c080", "eda080", "f4908080", "e022", "f09022", "c35c", "e0805c22"]) {
      const buf = Buffer.concat([Buffer.from('{"a":"x'), Buffer.from(hex, "hex"), Buffer.from('"}')]);
      expect(jsonShape(buf), hex).toBe(expected(buf));
    }
  });

  it("agrees with JSON.parse on random bytes inside strings and random whitespace between tokens", () => {
    // mulberry32, fixed seed: the same inputs every run.
    let seed = 7;
    const rand = (n: number) => {
      seed = (seed + 0x6d2b79f5) | 0;
      let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) % n;
    };
    const inString = [
      "a",
      '\\"',
      "\\\\",
      "\\u0022",
      "\\ud800",
      "é",
      "😀",
      "\\",
      '"',
      "\u0000",
      "\u001f",
      "\u007f",
      "\u2028",
    ].map((a) => Buffer.from(a));
    const high = [0x80, 0xbf, 0xc0, 0xc1, 0xc2, 0xdf, 0xe0, 0xed, 0xef, 0xf0, 0xf4, 0xf5, 0xf8, 0xff, 0xa0, 0x9f];
    const spaces = [" ", "\t", "\n", "\r", "\f", "\v", "\u00a0", "\ufeff", "\u2028", "\u0085", "\u3000", "\u0000"].map(
      (a) => Buffer.from(a),
    );
    const space = () => (rand(4) === 0 ? (spaces[rand(spaces.length)] as Buffer) : Buffer.alloc(0));
    const seen: Record<string, number> = {};
    for (let k = 0; k < 50_000; k++) {
      const parts = [space(), Buffer.from("{"), space(), Buffer.from('"k')];
      for (let i = rand(6); i > 0; i--)
        parts.push(
          rand(2) ? Buffer.from([high[rand(high.length)] as number]) : (inString[rand(inString.length)] as Buffer),
        );
      parts.push(
        Buffer.from('"'),
        space(),
        Buffer.from(":"),
        space(),
        Buffer.from(["1", "[]", '"v"', "-0", "1e5"][rand(5)] as string),
        space(),
        Buffer.from("}"),
        space(),
      );
      const buf = Buffer.concat(parts);
      const want = expected(buf);
      seen[want] = (seen[want] ?? 0) + 1;
      expect(jsonShape(buf), buf.toString("hex")).toBe(want);
    }
    expect(seen.object).toBeGreaterThan(5_000);
    expect(seen.invalid).toBeGreaterThan(5_000);
  });
});
