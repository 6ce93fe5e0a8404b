// Attribution of test failures: each test is run at the base and at the candidate, and
// whatever failed on either side is run again (identical reruns). A test whose result
// changes between identical runs is flaky; one failing on base too is pre-existing; one
// that fails only with the change was caused by it. A pass that needed a retry is never
// reported as fixed.
import type { Verifier } from "./local-verifier.ts";
import type { TestSelection } from "./runners/test-runner.ts";
import type { TestReport, TestStatus } from "./test-report.ts";

export type Attribution = "passing" | "fixed" | "caused-by-change" | "pre-existing" | "flaky";

export type AttributedTest = { id: string; verdict: Attribution; base: TestStatus[]; candidate: TestStatus[] };

export type AttributionResult = { tests: AttributedTest[]; counts: Record<Attribution, number>; testRuns: number };

const failed = (s: TestStatus | undefined) => s === "fail" || s === "error";

/** `parallel`: run base and candidate side by side (the Actions verifier puts both in one dispatch). */
export async function attributeFailures(
  verifier: Verifier,
  workspaces: { base: string; candidate: string },
  selection: TestSelection,
  reruns = 2,
  options: { parallel?: boolean } = {},
): Promise<AttributionResult> {
  const history = new Map<string, { base: TestStatus[]; candidate: TestStatus[] }>();
  const record = (side: "base" | "candidate", report: TestReport, only?: Set<string>) => {
    for (const t of report.tests) {
      if (only && !only.has(t.id)) continue;
      const entry = history.get(t.id) ?? { base: [], candidate: [] };
      entry[side].push(t.status);
      history.set(t.id, entry);
    }
  };
  const both = async (sel: TestSelection): Promise<[TestReport, TestReport]> => {
    if (!options.parallel)
      return [await verifier.run(workspaces.base, sel), await verifier.run(workspaces.candidate, sel)];
    verifier.expectBatch?.(2);
    return Promise.all([verifier.run(workspaces.base, sel), verifier.run(workspaces.candidate, sel)]);
  };
  let testRuns = 2;
  const [base, candidate] = await both(selection);
  record("base", base);
  record("candidate", candidate);

  const suspicious = [...history].filter(([, h]) => failed(h.base[0]) || failed(h.candidate[0])).map(([id]) => id);
  if (suspicious.length > 0) {
    const only = new Set(suspicious);
    for (let i = 0; i < reruns; i++) {
      const [b, c] = await both({ kind: "tests", ids: suspicious });
      record("base", b, only);
      record("candidate", c, only);
      testRuns += 2;
    }
  }

  const tests = [...history].map(([id, h]) => ({ id, verdict: verdictOf(h.base, h.candidate), ...h }));
  const counts: Record<Attribution, number> = {
    passing: 0,
    fixed: 0,
    "caused-by-change": 0,
    "pre-existing": 0,
    flaky: 0,
  };
  for (const t of tests) counts[t.verdict] += 1;
  return { tests, counts, testRuns };
}

function verdictOf(base: TestStatus[], candidate: TestStatus[]): Attribution {
  const consistent = (xs: TestStatus[]) => xs.length > 0 && xs.every((x) => failed(x) === failed(xs[0]));
  // A test absent on one side (added or deleted by the change) is judged by the side it ran on.
  if (!consistent(candidate) || (base.length > 0 && !consistent(base))) return "flaky";
  const candidateFails = failed(candidate[0]);
  const baseFails = base.length > 0 && failed(base[0]);
  if (candidateFails) return baseFails ? "pre-existing" : "caused-by-change";
  return baseFails ? "fixed" : "passing";
}
