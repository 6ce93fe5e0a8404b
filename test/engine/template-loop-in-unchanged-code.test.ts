// A loop in the unchanged code itself (a bisection square root whose guard compares the
// wrong quantity): the whole-suite run made before the strategy stops the looping tests,
// and is the strategy's only run of the unchanged code's tests: it stands as the visible
// tests' run and the regression baseline (the looping tests are not run to a limit again),
// its timings limit the coverage run's tracing of them, and the loop-guard family, ranked
// first because the failing tests never ended, repairs the guard.
// Real pytest runs in the sandbox; no per-test timeout in the environment.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier, type Verifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";
import type { TestSelection } from "../../src/verify/runners/test-runner.ts";
import { writeRepo } from "../support/python-task.ts";

const SOURCE = [
  "def root(n, tol=1e-9):",
  '    """Square root of n >= 1 by bisection, to within tol of n when squared."""',
  "    lo, hi = 0.0, float(n)",
  "    mid = (lo + hi) / 2",
  "    while abs(mid - n) > tol:",
  "        if mid * mid < n:",
  "            lo = mid",
  "        else:",
  "            hi = mid",
  "        mid = (lo + hi) / 2",
  "    return mid",
  "",
].join("\n");
const TESTS = [
  "from bisect_root import root",
  "",
  "def test_root_of_one():",
  "    assert abs(root(1) - 1) < 1e-6",
  "",
  "def test_root_of_nine():",
  "    assert abs(root(9) - 3) < 1e-6",
  "",
  "def test_root_of_two():",
  "    assert abs(root(2) - 1.41421356) < 1e-6",
  "",
].join("\n");

const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };

describe("template strategy: the unchanged code loops", () => {
  it("runs the unchanged code's tests only in the first run, reuses it as the visible and regression baseline, and squares the guard's operand", async () => {
    const dir = await writeRepo({ "bisect_root.py": SOURCE, "test_bisect_root.py": TESTS });
    const sandbox = { timeoutMs: 120_000, env: ENV };
    const real = localVerifier(detectRunner(dir), sandbox);
    const runs: TestSelection[] = [];
    // Runs of the verifier made while the source was still the unchanged code.
    let unchangedRuns = 0;
    const verifier: Verifier = {
      async run(workspace, selection, extraEnv, limit) {
        runs.push(selection);
        if ((await readFile(join(workspace, "bisect_root.py"), "utf8")) === SOURCE) unchangedRuns += 1;
        return real.run(workspace, selection, extraEnv, limit);
      },
    };
    // The pipeline's baseline: the whole suite with a per-test limit of 3 s (the default would be 24 s here).
    const suite = await real.run(dir, { kind: "all" }, undefined, {
      timeoutMs: 120_000,
      perTestMs: 3_000,
      reason: "x",
    });
    expect(suite.tests.map((t) => [t.id, t.status])).toEqual([
      ["test_bisect_root.py::test_root_of_one", "pass"],
      ["test_bisect_root.py::test_root_of_nine", "fail"],
      ["test_bisect_root.py::test_root_of_two", "fail"],
    ]);
    expect(suite.run.limit?.message).toMatch(/^timed out after 3 s in test_bisect_root\.py::test_root_of_nine \(x\)$/);

    const failing = suite.tests.filter((t) => t.status === "fail").map((t) => t.id);
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "tests", ids: failing },
      regression: { kind: "all" },
      suiteBaseline: suite,
      suiteBefore: suite,
      verifier,
      sandbox: { ...sandbox, env: withPytestPlugin(ENV) },
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 50, minutes: 10 },
      parallelism: 1,
    });

    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.plan.fix).toMatchObject({
      family: "square-operand",
      description: "`mid` → `mid ** 2` in the loop guard",
      line: 5,
    });
    expect(await readFile(join(dir, "bisect_root.py"), "utf8")).toContain("    while abs(mid ** 2 - n) > tol:\n");
    // The first candidate tried is the fix.
    expect(outcome.attempts.map((a) => a.result)).toEqual(["plausible"]);
    // The visible tests' evidence is the first run's, those two tests alone, each stopped at its limit, named.
    const before = outcome.evidence.before;
    expect(before?.limit).toBe(suite.run.limit?.message);
    expect(before?.tests.map((t) => [t.id, t.status, /timed out after 3 s/.test(t.message ?? "")])).toEqual([
      ["test_bisect_root.py::test_root_of_nine", "fail", true],
      ["test_bisect_root.py::test_root_of_two", "fail", true],
    ]);
    // No run of the unchanged code's tests besides the first (the coverage run is the tracer's own, not the verifier's).
    expect(unchangedRuns).toBe(0);
    // The whole suite ran once more only for the candidate's regression gate: the first run is the regression baseline.
    expect(outcome.evidence.regressionBefore?.limit).toBe(suite.run.limit?.message);
    expect(runs.filter((s) => s.kind === "all")).toHaveLength(1);
  });
});
