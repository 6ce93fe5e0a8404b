// The regression gate: a candidate that passes the visible tests must not break a test of
// the wider suite that passed on the unchanged code, nor stop the suite from running.
import { failingTests, type TestCaseResult, type TestReport } from "../../verify/test-report.ts";

export type GateVerdict = { held: boolean; broken: TestCaseResult[] };

export function regressionGate(baseline: TestReport, after: TestReport): GateVerdict {
  const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
  const broken = failingTests(after).filter((t) => passedBefore.has(t.id));
  // A suite that ran before and reports nothing now (a candidate broke its collection) did not hold.
  const silenced = after.tests.length === 0 && baseline.tests.length > 0;
  return { held: broken.length === 0 && !silenced, broken };
}
