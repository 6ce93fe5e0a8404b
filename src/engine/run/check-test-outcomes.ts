// Tampering judged by outcome: every test the unchanged code's run collected must be
// collected and run again on the candidate, whatever file the candidate changed to stop it
// (a conftest, a config's addopts, an environment file, a skip marker, a rename). A test
// that ran before (passed, failed or errored) and is now skipped, xfailed, deselected or
// missing is a test the candidate switched off.
import type { TestCaseResult, TestReport } from "../../verify/test-report.ts";

export type StoppedTest = { id: string; before: TestCaseResult["status"]; now: "skipped" | "missing" };

/** The tests of `before` that `after` no longer runs; empty when every test that ran still runs. */
export function stoppedTests(before: TestReport, after: TestReport): StoppedTest[] {
  const now = new Map(after.tests.map((t) => [t.id, t]));
  const stopped: StoppedTest[] = [];
  // Tests whose names change from run to run (a timestamp, a generated value in the title):
  // in each file, a test gone is matched by a new test that ran in the same file. A test
  // switched off without a new one in its place still counts.
  const earlier = new Set(before.tests.map((t) => t.id));
  const newRan = new Map<string, number>();
  for (const t of after.tests)
    if (!earlier.has(t.id) && t.status !== "skip") newRan.set(fileOf(t), (newRan.get(fileOf(t)) ?? 0) + 1);
  for (const test of before.tests) {
    const later = now.get(test.id);
    if (later) {
      if (later.status === "skip" && test.status !== "skip")
        stopped.push({ id: test.id, before: test.status, now: "skipped" });
      continue;
    }
    if (test.status === "error" && collectedNow(test, after)) continue;
    const spare = newRan.get(fileOf(test)) ?? 0;
    if (spare > 0) {
      newRan.set(fileOf(test), spare - 1);
      continue;
    }
    stopped.push({ id: test.id, before: test.status, now: "missing" });
  }
  return stopped;
}

/** The file a test belongs to: its report's file, else the id up to `::` or ` > `. */
function fileOf(test: TestCaseResult): string {
  return test.file ?? test.id.split(/::| > /)[0] ?? test.id;
}

/**
 * A module that did not load before is reported as one errored entry named for the module
 * (pytest: `tests.test_cart` or `tests/test_cart.py`); once the fix lets it load, its tests
 * stand in its place, so the entry's disappearance is the fix, not a test switched off.
 */
function collectedNow(entry: TestCaseResult, after: TestReport): boolean {
  const forms = new Set(
    [entry.id, entry.id.replaceAll(".", "/"), entry.file].filter((f): f is string => f !== undefined && f.length > 0),
  );
  const stem = (path: string) => path.replace(/\.(py|[cm]?[jt]sx?)$/, "");
  return after.tests.some((t) =>
    [t.id, t.file ?? ""].some((id) => [...forms].some((form) => id !== form && stem(id).startsWith(stem(form)))),
  );
}

/** The refusal's reason: "3 tests that ran before did not run after: a (now skipped), b (now missing), …". */
export function describeStopped(stopped: readonly StoppedTest[], shown = 10): string {
  const listed = stopped.slice(0, shown).map((s) => `${s.id} (now ${s.now})`);
  const more = stopped.length > shown ? `, and ${stopped.length - shown} more` : "";
  const count = stopped.length === 1 ? "1 test that ran before did" : `${stopped.length} tests that ran before did`;
  return `tampering: ${count} not run after: ${listed.join(", ")}${more}`;
}
