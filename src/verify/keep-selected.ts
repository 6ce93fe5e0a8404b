// A runner with no exact name filter (tape, a TAP-printing script) or one that matches by
// pattern ran more than the selection: the report keeps the selected tests only, and its
// exit code speaks for them when the failures that set it were all among the others.
import type { TestSelection } from "./runners/test-runner.ts";
import { failingTests, finishedOnItsOwn, type TestReport } from "./test-report.ts";

const SEPARATOR = " > ";
const lastOf = (id: string) => id.split(SEPARATOR).at(-1) ?? id;
const fileOf = (id: string) => (id.includes(SEPARATOR) ? id.split(SEPARATOR)[0] : undefined);

/**
 * Whether a test is the one an id names: the same id, or the same test named in a shorter
 * form than the runner's own: by its name alone (`--test adds`), or as `file > name` where
 * the report says `file > suite > name` (what the runner's name filter selects anyway).
 */
function named(test: { id: string; file?: string | undefined }, id: string): boolean {
  if (test.id === id) return true;
  if (lastOf(test.id) !== lastOf(id)) return false;
  const file = fileOf(id);
  return file === undefined || file === fileOf(test.id) || file === test.file;
}

export function keepSelected(report: TestReport, selection: TestSelection): TestReport {
  if (selection.kind !== "tests") return report;
  const exact = new Set(selection.ids);
  // An exact id wins: a same-named test in another suite is then not the one asked for.
  let kept = report.tests.filter(
    (t) => exact.has(t.id) || selection.ids.some((id) => !report.tests.some((o) => o.id === id) && named(t, id)),
  );
  // None of them ran: a test file that did not load (its one entry named for the file) speaks for them.
  if (kept.length === 0)
    kept = report.tests.filter((t) => t.status === "fail" && (lastOf(t.id) === t.file || t.name === t.file));
  const wanted = new Set(kept.map((t) => t.id));
  if (kept.length === report.tests.length) return report;
  const run = report.run;
  const othersFailed = failingTests(report).some((t) => !wanted.has(t.id));
  const selectedFailed = failingTests({ ...report, tests: kept }).length > 0;
  const exitCode =
    finishedOnItsOwn(run) && run.exitCode !== 0 && othersFailed && !selectedFailed && kept.length > 0
      ? 0
      : run.exitCode;
  return { ...report, run: { ...run, exitCode }, tests: kept, source: kept.length > 0 ? report.source : "none" };
}
