// The innermost range of each offset in one sweep gives what a search of every range gives, on
// ranges nested as V8 writes them.
import { describe, expect, it } from "vitest";
import { innermostRanges, type CoverageRange } from "../../../src/engine/template/innermost-range.ts";

/** The search the sweep replaced: the smallest range holding the offset, of identical ones the last. */
function searched(offset: number, ranges: readonly CoverageRange[]): CoverageRange | undefined {
  let best: CoverageRange | undefined;
  for (const r of ranges)
    if (
      r.startOffset <= offset &&
      offset < r.endOffset &&
      (!best || r.endOffset - r.startOffset <= best.endOffset - best.startOffset)
    )
      best = r;
  return best;
}

/** A pseudo-random tree of nested ranges (a function, its blocks, their blocks), in V8's order: outer first. */
function nested(seed: number): CoverageRange[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1103515245 + 12345) % 2 ** 31;
    return state % n;
  };
  const ranges: CoverageRange[] = [];
  const grow = (start: number, end: number, depth: number) => {
    ranges.push({ startOffset: start, endOffset: end, count: next(5) });
    if (depth === 0 || end - start < 4) return;
    let at = start + 1 + next(3);
    while (at < end - 2) {
      const stop = Math.min(end - 1, at + 1 + next(Math.max(1, end - at - 1)));
      if (next(3) > 0) grow(at, stop, depth - 1);
      // Now and then a block given twice (V8 does for some statements): the later one counts.
      if (next(9) === 0) ranges.push({ startOffset: at, endOffset: stop, count: 100 + next(5) });
      at = stop + next(3);
    }
  };
  grow(0, 300, 4);
  return ranges;
}

describe("innermostRanges", () => {
  it("gives each offset the range a search of every range gives, on nested ranges in any order", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const ranges = nested(seed);
      const shuffled = [...ranges].reverse();
      const offsets = Array.from({ length: 320 }, (_, i) => (i * 37) % 320);
      expect(innermostRanges(offsets, ranges)).toEqual(offsets.map((o) => searched(o, ranges)));
      expect(innermostRanges(offsets, shuffled)).toEqual(offsets.map((o) => searched(o, shuffled)));
    }
  });

  it("gives nothing outside every range, and skips empty and inverted ranges", () => {
    const ranges = [
      { startOffset: 10, endOffset: 20, count: 1 },
      { startOffset: 12, endOffset: 12, count: 9 },
      { startOffset: 15, endOffset: 13, count: 9 },
    ];
    expect(innermostRanges([5, 12, 14, 20], ranges).map((r) => r?.count)).toEqual([undefined, 1, 1, undefined]);
  });
});
