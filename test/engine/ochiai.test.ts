import { describe, expect, it } from "vitest";
import { ochiai, type TestSpectrum } from "../../src/engine/template/ochiai.ts";

const spectrum = (id: string, failed: boolean, lines: Record<string, number[]>): TestSpectrum => ({
  id,
  failed,
  lines: new Map(Object.entries(lines).map(([f, l]) => [f, new Set(l)])),
});

describe("ochiai", () => {
  it("scores ef / sqrt(totalFailed * (ef + ep)) and ranks highest first", () => {
    const ranked = ochiai([
      spectrum("t1", true, { "a.py": [1, 2, 3] }),
      spectrum("t2", false, { "a.py": [1, 2] }),
      spectrum("t3", true, { "a.py": [1, 4] }),
    ]);
    expect(ranked.map((l) => [l.line, Number(l.score.toFixed(4)), l.failedCovering, l.passedCovering])).toEqual([
      [1, Number((2 / Math.sqrt(2 * 3)).toFixed(4)), 2, 1],
      [3, Number((1 / Math.sqrt(2)).toFixed(4)), 1, 0],
      [4, Number((1 / Math.sqrt(2)).toFixed(4)), 1, 0],
      [2, Number((1 / Math.sqrt(2 * 2)).toFixed(4)), 1, 1],
    ]);
  });

  it("ignores lines no failing test executes, and excluded files", () => {
    const ranked = ochiai(
      [spectrum("t1", true, { "a.py": [1], "test_a.py": [9] }), spectrum("t2", false, { "a.py": [2] })],
      (f) => !f.startsWith("test_"),
    );
    expect(ranked.map((l) => `${l.file}:${l.line}`)).toEqual(["a.py:1"]);
  });

  it("gives nothing when no test fails", () => {
    expect(ochiai([spectrum("t", false, { "a.py": [1] })])).toEqual([]);
  });
});
