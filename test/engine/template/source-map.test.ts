// The source map reading of the JavaScript localiser (transformed code's V8 ranges back onto the
// original lines): what a map from the repository may name, and what is ignored.
import { describe, expect, it } from "vitest";
import {
  decodeSegments,
  mappedLineCounts,
  parseInlineMap,
  sourcePath,
  type ScriptRecord,
} from "../../../src/engine/template/source-map.ts";

const dataUrl = (map: unknown) =>
  `data:application/json;charset=utf-8;base64,${Buffer.from(JSON.stringify(map)).toString("base64")}`;

describe("source maps of transformed scripts", () => {
  it("places each mapping at its offset in the script V8 ran, after the vm wrapper's column offset", () => {
    // Script: a 5-character wrapper, then "a;" on line 0; "b;" on line 1. The map was written for the
    // code without the wrapper, which the vm's columnOffset of -5 accounts for (vitest does so).
    const record: ScriptRecord = {
      filename: "/w/x.js",
      length: 10,
      lineOffset: 0,
      columnOffset: -5,
      lines: [7, 2],
      map: "",
    };
    // Line 0 col 0 -> source 0 line 3 col 0; line 1 col 0 -> source 0 line 7 col 2.
    const segments = decodeSegments("AAEA;AAIE", record);
    expect(segments).toEqual([
      { offset: 5, source: 0, line: 3, column: 0 },
      { offset: 8, source: 0, line: 7, column: 2 },
    ]);
    const counts = mappedLineCounts(segments ?? [], [
      { startOffset: 0, endOffset: 10, count: 1 },
      { startOffset: 8, endOffset: 10, count: 4 },
    ]);
    expect(counts?.get(0)).toEqual(
      new Map([
        [3, 1],
        [7, 4],
      ]),
    );
  });

  it("ignores a malformed map, a map of another URL and one past the bound", () => {
    expect(parseInlineMap("data:application/json;base64,bm90IGpzb24=")).toBeUndefined();
    expect(parseInlineMap(dataUrl({ version: 2, sources: [], mappings: "" }))).toBeUndefined();
    expect(parseInlineMap("index.js.map")).toBeUndefined();
    expect(parseInlineMap("https://example.com/x.map")).toBeUndefined();
    expect(parseInlineMap(dataUrl({ version: 3, sources: ["a.ts"], mappings: "x".repeat(17 * 1024 * 1024) }))).toBe(
      undefined,
    );
    const record: ScriptRecord = {
      filename: "/w/x.js",
      length: 2,
      lineOffset: 0,
      columnOffset: 0,
      lines: [2],
      map: "",
    };
    expect(decodeSegments("A!AA", record)).toBeUndefined();
    expect(decodeSegments("AAAA", record)).toEqual([{ offset: 0, source: 0, line: 1, column: 0 }]);
  });

  it("names a source by path only: relative to the script (and sourceRoot), file: URLs, absolute; no other scheme", () => {
    expect(sourcePath("/w/src/a.ts", "a.ts", undefined)).toBe("/w/src/a.ts");
    expect(sourcePath("/w/src/a.ts", "../../../etc/passwd", undefined)).toBe("/etc/passwd");
    expect(sourcePath("/w/src/a.ts", "/etc/passwd", "")).toBe("/etc/passwd");
    expect(sourcePath("/w/src/a.ts", "x.ts", "../lib")).toBe("/w/lib/x.ts");
    expect(sourcePath("/w/src/a.ts", "file:///etc/group", undefined)).toBe("/etc/group");
    expect(sourcePath("/w/src/a.ts", "webpack://app/src/a.ts", undefined)).toBeUndefined();
  });
});
