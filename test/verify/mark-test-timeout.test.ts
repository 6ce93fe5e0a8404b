// A run names the test our per-test limit stopped (the pytest plugin's and node's watchdog's
// words, node --test's own); a test that failed on a timeout of its own is not one:
// boltons' socket test failing with "socket operation timed out after 10.0ms." on a loaded
// machine was reported as "unchanged code timed out after 0 s" in bench:upstream.
import { describe, expect, it } from "vitest";
import { markTestTimeout, stoppedByTestLimit } from "../../src/verify/mark-test-timeout.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

const LIMIT = { timeoutMs: 60_000, perTestMs: 2_000, reason: "the per-test limit" };

function failing(message: string): TestReport {
  return {
    run: {
      argv: ["pytest"],
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 3_000,
      output: "",
      outputBytes: 0,
      outputTruncated: false,
      isolation: "none",
    },
    tests: [
      { id: "tests/test_a.py::test_ok", name: "test_ok", status: "pass" },
      { id: "tests/test_a.py::test_b", name: "test_b", status: "fail", message },
    ],
  } as TestReport;
}

describe("markTestTimeout", () => {
  it.each([
    ["TimeoutError: timed out after 2 s of CPU time (the per-test limit, AUTOGEN_TEST_TIMEOUT)", "2"],
    ["TimeoutError: timed out after 20 s of wall-clock time (the per-test limit for a test that blocks, …)", "20"],
    ["test timed out after 1500ms", "1.5"],
  ])("names the test our limit stopped: %s", (message, seconds) => {
    const report = failing(message);
    markTestTimeout(report, LIMIT);
    expect(report.run.limit).toEqual({
      name: "test-time",
      message: `timed out after ${seconds} s in tests/test_a.py::test_b (the per-test limit)`,
    });
    expect(stoppedByTestLimit(report.tests[1]!)).toBe(true);
  });

  it.each([
    "boltons.socketutils.Timeout: socket operation timed out after 10.0ms.",
    "requests.exceptions.ReadTimeout: read timed out after 3 s",
    "AssertionError: job timed out after 250ms",
  ])("leaves a test's own timeout alone: %s", (message) => {
    const report = failing(message);
    markTestTimeout(report, LIMIT);
    expect(report.run.limit).toBeUndefined();
    expect(stoppedByTestLimit(report.tests[1]!)).toBe(false);
  });
});
