// A test the runner stopped at the per-test limit (our pytest plugin's or node --test's
// own message) named on the run, as the sandbox names a run stopped whole.
import type { TestReport } from "./test-report.ts";
import type { RunTimeLimit } from "./verifier.ts";

// Our pytest plugin's "timed out after 1.2 s" and node --test's "test timed out after 1200ms".
const TEST_TIMED_OUT = /\btimed out after (\d+(?:\.\d+)?) ?(ms|s)\b/;

/** A test the runner stopped at the per-test limit: the run names it, as it names a run stopped whole. */
export function markTestTimeout(report: TestReport, limit: RunTimeLimit): void {
  const stopped = report.tests.find(
    (t) => (t.status === "fail" || t.status === "error") && TEST_TIMED_OUT.test(t.message ?? ""),
  );
  const match = stopped && TEST_TIMED_OUT.exec(stopped.message ?? "");
  if (!stopped || !match) return;
  const after = match[2] === "ms" ? Number(match[1]) / 1000 : Number(match[1]);
  report.run.limit = {
    name: "test-time",
    message: `timed out after ${String(Math.round(after * 10) / 10)} s in ${stopped.id} (${limit.reason})`,
  };
}
