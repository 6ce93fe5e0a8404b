// Which of a run's tests a new test file added, when the runner's results name no file
// (TAP: tape, node-tap's flat stream): those new against the suite's run before the file
// (the pipeline's baseline). TAP tells tests apart by name only, numbering a repeated name
// in run order ("x", "x (2)"), so a new test named like an existing one would take an
// existing test's id or shift the ids after it: such a file cannot be attributed, and the
// names that clash are returned for the model to change.
import type { TestCaseResult, TestReport } from "../../verify/test-report.ts";

export type NewTests = { kind: "new"; tests: TestCaseResult[] } | { kind: "clash"; names: string[] };

/** True when no result of the run names its file: the file's tests can only be found against a baseline. */
export function namesNoFile(report: TestReport, path: string): boolean {
  return report.tests.every((t) => t.file === undefined && !t.id.includes(path));
}

export function newAgainstBaseline(baseline: TestReport, report: TestReport): NewTests {
  const before = new Map<string, number>();
  for (const t of baseline.tests) before.set(t.name, (before.get(t.name) ?? 0) + 1);
  const seen = new Map<string, number>();
  const added: TestCaseResult[] = [];
  const clashes = new Set<string>();
  for (const t of report.tests) {
    const n = (seen.get(t.name) ?? 0) + 1;
    seen.set(t.name, n);
    const had = before.get(t.name) ?? 0;
    if (n <= had) continue;
    if (had > 0) clashes.add(t.name);
    else added.push(t);
  }
  if (clashes.size > 0) return { kind: "clash", names: [...clashes] };
  return { kind: "new", tests: added };
}
