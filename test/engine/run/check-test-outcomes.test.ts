// Tampering by outcome on per-test records: what counts as a test switched off, and what does not.
import { describe, expect, it } from "vitest";
import { describeStopped, stoppedTests } from "../../../src/engine/run/check-test-outcomes.ts";
import type { TestCaseResult, TestReport } from "../../../src/verify/test-report.ts";

const report = (tests: Array<Pick<TestCaseResult, "id" | "status"> & { file?: string }>): TestReport => ({
  run: {
    argv: ["pytest"],
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    isolation: "none",
  },
  tests: tests.map((t) => ({ name: t.id, ...t })),
  source: "junit",
});

describe("stoppedTests", () => {
  it("names tests that ran before and are now skipped or missing, whatever their status before", () => {
    const before = report([
      { id: "tests/test_a.py::test_pass", status: "pass" },
      { id: "tests/test_a.py::test_fail", status: "fail" },
      { id: "tests/test_a.py::test_param[1-2]", status: "pass" },
      { id: "tests/test_b.py::test_gone", status: "pass" },
    ]);
    const after = report([
      { id: "tests/test_a.py::test_pass", status: "pass" },
      { id: "tests/test_a.py::test_fail", status: "skip" },
    ]);
    expect(stoppedTests(before, after)).toEqual([
      { id: "tests/test_a.py::test_fail", before: "fail", now: "skipped" },
      { id: "tests/test_a.py::test_param[1-2]", before: "pass", now: "missing" },
      { id: "tests/test_b.py::test_gone", before: "pass", now: "missing" },
    ]);
  });

  it("a test whose name changes from run to run (a generated value in its id) is matched by the new test that ran in its file", () => {
    const before = report([
      { id: "tests/test_a.py::test_at[0x7f01]", status: "pass" },
      { id: "tests/test_a.py::test_b", status: "pass" },
    ]);
    expect(
      stoppedTests(
        before,
        report([
          { id: "tests/test_a.py::test_at[0x7e99]", status: "pass" },
          { id: "tests/test_a.py::test_b", status: "pass" },
        ]),
      ),
    ).toEqual([]);
    // A new name that is skipped stands for nothing; nor does a new test in another file.
    expect(
      stoppedTests(
        before,
        report([
          { id: "tests/test_a.py::test_at[0x7e99]", status: "skip" },
          { id: "tests/test_a.py::test_b", status: "pass" },
        ]),
      ),
    ).toEqual([{ id: "tests/test_a.py::test_at[0x7f01]", before: "pass", now: "missing" }]);
    expect(
      stoppedTests(
        before,
        report([
          { id: "tests/test_z.py::test_at[0x7e99]", status: "pass" },
          { id: "tests/test_a.py::test_b", status: "pass" },
        ]),
      ),
    ).toEqual([{ id: "tests/test_a.py::test_at[0x7f01]", before: "pass", now: "missing" }]);
  });

  it("lets a test stay skipped, a test be added, and a skipped test start running", () => {
    const before = report([
      { id: "t::a", status: "skip" },
      { id: "t::b", status: "skip" },
      { id: "t::c", status: "fail" },
    ]);
    const after = report([
      { id: "t::a", status: "skip" },
      { id: "t::b", status: "pass" },
      { id: "t::c", status: "pass" },
      { id: "t::new", status: "pass" },
    ]);
    expect(stoppedTests(before, after)).toEqual([]);
  });

  it("a skipped test that disappears is missing too: every collected test must still be collected", () => {
    expect(stoppedTests(report([{ id: "t::a", status: "skip" }]), report([{ id: "u::b", status: "pass" }]))).toEqual([
      { id: "t::a", before: "skip", now: "missing" },
    ]);
  });

  it("a module that failed to load before is replaced by its tests once it loads; not when nothing of it runs", () => {
    const before = report([
      { id: "tests.test_cart", status: "error" },
      { id: "tests/test_x.py::test_a", status: "pass" },
    ]);
    expect(
      stoppedTests(
        before,
        report([
          { id: "tests/test_cart.py::test_total", status: "pass", file: "tests/test_cart.py" },
          { id: "tests/test_x.py::test_a", status: "pass" },
        ]),
      ),
    ).toEqual([]);
    expect(stoppedTests(before, report([{ id: "tests/test_x.py::test_a", status: "pass" }]))).toEqual([
      { id: "tests.test_cart", before: "error", now: "missing" },
    ]);
  });

  it("a runner that reports a file as one test compares by that id", () => {
    expect(
      stoppedTests(
        report([{ id: "test/calc.test.js", status: "fail" }]),
        report([{ id: "test/calc.test.js", status: "pass" }]),
      ),
    ).toEqual([]);
    expect(
      stoppedTests(
        report([{ id: "test/calc.test.js", status: "fail" }]),
        report([{ id: "test/other.test.js", status: "pass" }]),
      ),
    ).toHaveLength(1);
  });
});

describe("describeStopped", () => {
  it("counts, names each test with what it is now, and cuts a long list with how many more", () => {
    const stopped = Array.from({ length: 12 }, (_, i) => ({
      id: `t::test_${i}`,
      before: "pass" as const,
      now: i % 2 ? ("missing" as const) : ("skipped" as const),
    }));
    const text = describeStopped(stopped);
    expect(text).toMatch(
      /^tampering: 12 tests that ran before did not run after: t::test_0 \(now skipped\), t::test_1 \(now missing\), /,
    );
    expect(text).toContain("t::test_9 (now missing), and 2 more");
    expect(describeStopped(stopped.slice(0, 1))).toBe(
      "tampering: 1 test that ran before did not run after: t::test_0 (now skipped)",
    );
  });
});
