// The candidate limits from the unchanged code's timings: per test, per run, capped, configurable.
import { describe, expect, it } from "vitest";
import { CandidateLimits, candidateTimedOut } from "../../src/engine/candidate-limits.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

function report(durationMs: number, testMs: number[], limit?: TestReport["run"]["limit"]): TestReport {
  return {
    run: {
      argv: [],
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs,
      output: "",
      outputBytes: 0,
      outputTruncated: false,
      isolation: "none",
      limit,
    },
    tests: testMs.map((ms, i) => ({ id: `t${String(i)}`, name: `t${String(i)}`, status: "pass", durationMs: ms })),
    source: "junit",
  };
}

describe("CandidateLimits", () => {
  it("sets no limit before the unchanged code's run is known", () => {
    expect(new CandidateLimits(undefined, 600_000).limitFor({ kind: "all" })).toBeUndefined();
  });

  it("gives each test 5 × the slowest test + 1 s (3 × that for a test that blocks), and the run that per test, at least one blocking test, plus 2 × the start-up", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    // 900 ms of wall, 100 + 200 ms inside tests: 600 ms of start-up and collection.
    limits.learn(report(900, [100, 200]));
    expect(limits.limitFor({ kind: "tests", ids: ["t1"] })).toMatchObject({
      perTestMs: 2_000,
      perTestWallMs: 3 * 2_000,
      // Room for one blocking test (and the floor) past the start-up, so it fails by itself before the run is cut off.
      timeoutMs: 1_200 + 3 * 2_000 + 1_000,
    });
    expect(limits.limitFor({ kind: "all" })).toMatchObject({ perTestMs: 2_000, timeoutMs: 1_200 + 3 * 2_000 + 1_000 });
    // Many tests: that many times a test's time, which is more.
    limits.learn(report(900, [100, 200, 10, 10, 10, 10]));
    expect(limits.limitFor({ kind: "all" })).toMatchObject({ perTestMs: 2_000, timeoutMs: 1_200 + 6 * 2_000 });
    expect(limits.limitFor({ kind: "tests", ids: ["t1"] })?.reason).toBe(
      "the candidate limit: 1 test(s) × 2 s (5 × the slowest test's 0.2 s + 1 s) + 2 × the 0.6 s the unchanged code's run spent starting and collecting; a test that blocks is stopped after 6 s",
    );
  });

  it("gives a test in the per-test coverage run 4 × a candidate's allowance for the slowest test + twice the floor, capped, and none before a baseline", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    expect(limits.tracePerTestMs()).toBeUndefined();
    // A looping test stopped at the first run's limit times the limit, not itself: it sets nothing.
    const looped = report(10_500, [10_000, 50]);
    const first = looped.tests[0];
    if (first)
      Object.assign(first, {
        status: "fail",
        message: "TimeoutError: timed out after 10 s of CPU time (the per-test limit, AUTOGEN_TEST_TIMEOUT)",
      });
    limits.learn(looped);
    expect(limits.tracePerTestMs()).toBe(4 * 5 * 50 + 2 * 1_000);
    const capped = new CandidateLimits(undefined, 3_000);
    capped.learn(report(900, [100]));
    expect(capped.tracePerTestMs()).toBe(3_000);
  });

  it("traces failing tests that all looped in the unchanged code at a candidate's per-test limit, not the tracer's multiple of it", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    const looped = report(10_500, [2_500, 2_500, 50]);
    const [first, second] = looped.tests;
    for (const test of [first, second])
      if (test) Object.assign(test, { status: "fail", message: "TimeoutError: timed out after 2.5 s of CPU time" });
    limits.learn(looped);
    const stopped = looped.tests.slice(0, 2);
    // Each fails again whatever its limit, and its loop's lines run in its first moments: 5 × 50 ms + 1 s.
    expect(limits.traceFailingPerTestMs(stopped)).toBe(5 * 50 + 1_000);
    expect(limits.tracePerTestMs()).toBe(4 * 5 * 50 + 2 * 1_000);
    // One failing test that ended by itself (an assertion) keeps the tracer's allowance for all of them.
    const assertion = { id: "t9", name: "t9", status: "fail" as const, durationMs: 40, message: "AssertionError" };
    expect(limits.traceFailingPerTestMs([...stopped, assertion])).toBe(limits.tracePerTestMs());
    expect(new CandidateLimits(undefined, 600_000).traceFailingPerTestMs(stopped)).toBeUndefined();
  });

  it("follows test.candidateLimit and never exceeds the test run's own limit", () => {
    const limits = new CandidateLimits({ factor: 2, floorSeconds: 0.5 }, 600_000);
    limits.learn(report(1_000, [250, 250]));
    expect(limits.limitFor({ kind: "tests", ids: ["t0", "t1"] })).toMatchObject({
      perTestMs: 1_000,
      timeoutMs: 1_000 + 3 * 1_000 + 500,
    });
    const capped = new CandidateLimits(undefined, 4_000);
    capped.learn(report(1_000, [250, 250]));
    // Under the cap a blocking test is still stopped before the run is.
    expect(capped.limitFor({ kind: "all" })).toMatchObject({
      timeoutMs: 4_000,
      perTestMs: 2_250,
      perTestWallMs: 2_250,
    });
  });

  it("takes the slowest test and the longest start-up over every baseline run it learnt", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    limits.learn(report(500, [10]));
    limits.learn(report(3_000, [10, 20, 1_000]));
    expect(limits.limitFor({ kind: "tests", ids: ["t0"] })).toMatchObject({
      perTestMs: 6_000,
      timeoutMs: 2 * 1_970 + 3 * 6_000 + 1_000,
    });
  });

  it('keeps a forged huge duration (time="1e9", 1e308 ms) at the test run\'s own limit, and ignores Infinity', () => {
    expect(new CandidateLimits(undefined, 600_000).limitFor(undefined)).toBeUndefined();
    const infinite = new CandidateLimits(undefined, 600_000);
    infinite.learn(report(1_000, [Number.POSITIVE_INFINITY, 100]));
    expect(infinite.limitFor({ kind: "tests", ids: ["t1"] })?.perTestMs).toBe(1_500);
    for (const forged of [1e12, 1e308]) {
      const limits = new CandidateLimits(undefined, 600_000);
      limits.learn(report(1_000, [forged, 100]));
      for (const selection of [{ kind: "all" as const }, { kind: "tests" as const, ids: ["t1"] }]) {
        const limit = limits.limitFor(selection);
        expect(limit?.timeoutMs).toBe(600_000);
        expect(limit?.perTestMs).toBe(600_000);
      }
    }
  });

  it("learns from a forged report of 300,000 tests without overflowing the stack", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    const times = Array.from({ length: 300_000 }, () => 1);
    times[123_456] = 200;
    limits.learn(report(1_000_000, times));
    expect(limits.limitFor({ kind: "tests", ids: ["t1"] })?.perTestMs).toBe(2_000);
  });

  it("ignores durations a forged report made negative or not a number", () => {
    const limits = new CandidateLimits(undefined, 600_000);
    limits.learn(report(1_000, [Number.NaN, -5_000, 100]));
    expect(limits.limitFor({ kind: "tests", ids: ["t2"] })).toMatchObject({
      perTestMs: 1_500,
      timeoutMs: 2 * 900 + 3 * 1_500 + 1_000,
    });
    const allForged = new CandidateLimits(undefined, 600_000);
    allForged.learn(report(500, [-10_000]));
    expect(allForged.limitFor({ kind: "all" })?.timeoutMs).toBe(2 * 500 + 3 * 1_000 + 1_000);
  });
});

describe("candidateTimedOut", () => {
  it("names the run's wall limit or a test's per-test limit, and nothing else", () => {
    expect(candidateTimedOut(report(1, [], { name: "wall-time", message: "timed out after 3 s (x)" }))).toBe(
      "timed out after 3 s (x)",
    );
    expect(candidateTimedOut(report(1, [], { name: "test-time", message: "timed out after 1 s in t0 (x)" }))).toBe(
      "timed out after 1 s in t0 (x)",
    );
    expect(candidateTimedOut(report(1, [], { name: "processes", message: "too many processes" }))).toBeUndefined();
    expect(candidateTimedOut(report(1, []))).toBeUndefined();
  });
});
