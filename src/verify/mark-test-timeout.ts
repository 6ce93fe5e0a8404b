// A test the runner stopped at the per-test limit (our pytest plugin's or node --test's
// own message) named on the run, as the sandbox names a run stopped whole.
import type { TestReport } from "./test-report.ts";
import type { RunTimeLimit } from "./verifier.ts";

// Our per-test limit's own words (the pytest plugin's and node's watchdog's "timed out after
// 1.2 s of CPU time" / "of wall-clock time") and node --test's "test timed out after 1200ms";
// not a test's own timeout ("socket operation timed out after 10.0ms.", boltons' socketutils).
const TEST_TIMED_OUT =
  /\btimed out after (\d+(?:\.\d+)?) (s) of (?:CPU|wall-clock) time\b|\btest timed out after (\d+)(ms)\b/;

/** A failing test stopped by our per-test limit, not by a timeout of its own. */
export function stoppedByTestLimit(test: TestReport["tests"][number]): boolean {
  return (test.status === "fail" || test.status === "error") && TEST_TIMED_OUT.test(test.message ?? "");
}

/** A test the runner stopped at the per-test limit: the run names it, as it names a run stopped whole. */
export function markTestTimeout(report: TestReport, limit: RunTimeLimit): void {
  const stopped = report.tests.find(stoppedByTestLimit);
  const match = stopped && TEST_TIMED_OUT.exec(stopped.message ?? "");
  if (!stopped || !match) return;
  const after = match[1] !== undefined ? Number(match[1]) : Number(match[3]) / 1000;
  report.run.limit = {
    name: "test-time",
    message: `timed out after ${String(Math.round(after * 10) / 10)} s in ${stopped.id} (${limit.reason})`,
  };
}
