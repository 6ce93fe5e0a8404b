// A failing test whose assertion sits in the repository's own helper (tabulate's
// `assert_equal` in test/common.py) reaches the model as a bare "AssertionError": pytest
// rewrites asserts only in test modules. Such tests are run once more with the helper's
// module registered for assertion rewriting (our autogen_show_values plugin), in the
// sandbox like every run, and their failures are taken from that run.
import type { TestCaseResult, TestReport } from "../../verify/test-report.ts";
import { failureFrames } from "../context/failure-frames.ts";

export const SHOW_VALUES_PLUGIN = "autogen_show_values";

/** Runs the given pytest ids with extra environment (a Verifier.run on the workspace). */
export type Rerun = (ids: string[], extraEnv: Record<string, string>) => Promise<TestReport>;

export async function withVisibleValues(
  failing: readonly TestCaseResult[],
  workspace: string,
  rerun: Rerun | undefined,
): Promise<TestCaseResult[]> {
  const hidden = failing.filter((t) => t.id.includes("::") && valuesHidden(t));
  if (!rerun || hidden.length === 0) return [...failing];
  const modules = new Set<string>();
  for (const t of hidden)
    for (const file of helperFiles(t, workspace)) for (const name of moduleNames(file)) modules.add(name);
  if (modules.size === 0) return [...failing];
  const report = await rerun(
    hidden.map((t) => t.id),
    { AUTOGEN_REWRITE_MODULES: [...modules].join(","), PYTEST_ADDOPTS: `-p ${SHOW_VALUES_PLUGIN}` },
  );
  const rerunById = new Map(report.tests.map((t) => [t.id, t]));
  return failing.map((t) => {
    const again = rerunById.get(t.id);
    return again && (again.status === "fail" || again.status === "error") && !valuesHidden(again)
      ? { ...t, message: again.message, details: again.details }
      : t;
  });
}

/** An assertion that failed without saying what it compared. */
export function valuesHidden(t: TestCaseResult): boolean {
  const first = (t.message ?? "").split("\n")[0]?.trim() ?? "";
  return (
    /^(AssertionError:?)?$/.test(first) &&
    (t.status === "fail" || t.status === "error") &&
    !/^E\s+(assert|AssertionError: assert)\s/m.test(t.details ?? "")
  );
}

/** Repository files other than the test's own where its traceback ended: the helpers. */
function helperFiles(t: TestCaseResult, workspace: string): string[] {
  const own = t.id.split("::")[0];
  return [
    ...new Set(
      failureFrames([t], workspace)
        .map((f) => f.file)
        .filter((f) => f !== own && f.endsWith(".py")),
    ),
  ];
}

/** The names a helper file may be imported under: `test/common.py` → `common`, `test.common`. */
export function moduleNames(file: string): string[] {
  const parts = file.replace(/\.py$/, "").split("/");
  if (parts.at(-1) === "__init__") parts.pop();
  const names = new Set<string>();
  for (let i = 0; i < parts.length; i++) names.add(parts.slice(i).join("."));
  return [...names].filter((n) => n.split(".").every((p) => /^[A-Za-z_]\w*$/.test(p)));
}

/** The baseline's report and failing tests with hidden values made visible (one more sandboxed pytest run, counted), for any strategy. */
export async function baselineWithValues(
  task: {
    workspace: string;
    runnerName: string;
    verifier: {
      run(
        workspace: string,
        selection: { kind: "tests"; ids: string[] },
        extraEnv?: Record<string, string>,
      ): Promise<TestReport>;
    };
  },
  count: (runs: number, durationMs: number) => void,
  before: TestReport,
  failing: TestCaseResult[],
): Promise<{ before: TestReport; failing: TestCaseResult[] }> {
  if (task.runnerName !== "pytest") return { before, failing };
  const shown = await withVisibleValues(failing, task.workspace, async (ids, env) => {
    const report = await task.verifier.run(task.workspace, { kind: "tests", ids }, env);
    count(1, report.run.durationMs);
    return report;
  });
  const byId = new Map(shown.map((t) => [t.id, t]));
  return { before: { ...before, tests: before.tests.map((t) => byId.get(t.id) ?? t) }, failing: shown };
}
