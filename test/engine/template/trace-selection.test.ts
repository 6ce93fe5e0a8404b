import { describe, expect, it } from "vitest";
import { heavyTestsToLeaveOut } from "../../../src/engine/template/trace-selection.ts";

describe("heavyTestsToLeaveOut", () => {
  it("leaves out the heaviest passing tests, fewest first, until the rest hold at most 40% of the suite's time", () => {
    // 24 passing tests, 1,000 ms: a test is heavy from 10 × 41.7 ms.
    const passing = [
      { id: "a", ms: 10 },
      { id: "heavy", ms: 600 },
      { id: "b", ms: 10 },
      { id: "medium", ms: 200 },
      ...Array.from({ length: 20 }, (_, i) => ({ id: `t${String(i)}`, ms: 9 })),
    ];
    // 1,000 ms in all with 0 ms failing: 600 out leaves 400 ≤ 40%.
    expect(heavyTestsToLeaveOut(passing, 0)).toEqual(["heavy"]);
    // The failing tests' time counts in the suite's: 1,100 ms, budget 440.
    expect(heavyTestsToLeaveOut(passing, 100)).toEqual(["heavy"]);
    // Without it: 400 ms, budget 160; medium (200 ms) is heavy (≥ 10 × 17.4 ms), the 9–10 ms tests are not.
    expect(
      heavyTestsToLeaveOut(
        passing.filter((t) => t.id !== "heavy"),
        0,
      ),
    ).toEqual(["medium"]);
  });

  it("leaves out nothing when the time is spread, only tests of 10 × the mean", () => {
    const even = Array.from({ length: 10 }, (_, i) => ({ id: `t${String(i)}`, ms: 10 }));
    expect(heavyTestsToLeaveOut(even, 0)).toEqual([]);
    const threeHeavy = [
      { id: "h1", ms: 1_000 },
      { id: "h2", ms: 1_000 },
      { id: "h3", ms: 1_000 },
      ...Array.from({ length: 40 }, (_, i) => ({ id: `t${String(i)}`, ms: 1 })),
      { id: "l", ms: 0 },
    ];
    // 3,040 ms, budget 1,216: two heavy tests out are enough.
    expect(heavyTestsToLeaveOut(threeHeavy, 0)).toEqual(["h1", "h2"]);
    // One slow outlier (10 × the mean, 3% of the time) is traced.
    const outlier = [
      { id: "slow", ms: 100 },
      ...Array.from({ length: 300 }, (_, i) => ({ id: `t${String(i)}`, ms: 9 })),
    ];
    expect(heavyTestsToLeaveOut(outlier, 0)).toEqual([]);
    // Three of four tests hold the time: none is 10 × the mean, all are traced.
    expect(heavyTestsToLeaveOut(threeHeavy.slice(0, 4), 0)).toEqual([]);
  });

  it("traces tests without a timing, and breaks ties by id", () => {
    const untimed = Array.from({ length: 20 }, (_, i) => ({ id: `u${String(i)}`, ms: i % 2 ? undefined : Number.NaN }));
    expect(heavyTestsToLeaveOut([{ id: "b", ms: 50 }, { id: "a", ms: 50 }, ...untimed, { id: "z", ms: 1 }], 0)).toEqual(
      ["a", "b"],
    );
  });
});
