// A runner with no exact name filter (tape, a TAP-printing script) or one that matches by
// pattern ran more than the selection: the report keeps the selected tests only, and its
// exit code speaks for them when the failures that set it were all among the others.
import type { TestSelection } from "./runners/test-runner.ts";
import { failingTests, type TestReport } from "./test-report.ts";

export function keepSelected(report: TestReport, selection: TestSelection): TestReport {
  if (selection.kind !== "tests") return report;
  const wanted = new Set(selection.ids);
  const kept = report.tests.filter((t) => wanted.has(t.id));
  if (kept.length === report.tests.length) return report;
  const run = report.run;
  const finishedOnItsOwn = !run.limit && !run.timedOut && !run.signal && !run.spawnError;
  const othersFailed = failingTests(report).some((t) => !wanted.has(t.id));
  const selectedFailed = failingTests({ ...report, tests: kept }).length > 0;
  const exitCode = finishedOnItsOwn && run.exitCode !== 0 && othersFailed && !selectedFailed && kept.length > 0 ? 0 : run.exitCode;
  return { ...report, run: { ...run, exitCode }, tests: kept, source: kept.length > 0 ? report.source : "none" };
}
