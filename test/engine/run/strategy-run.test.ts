// The shared run harness (src/engine/run/) with the real verifier on a tiny Python
// repository: the baseline and its stops, the regression gate, attempts released in
// candidate order, costs counted from the tests run and the model budget's growth; then
// template, LPW and direct on one task, reporting attempts, costs and evidence alike.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, onTestFinished } from "vitest";
import { directStrategy } from "../../../src/engine/direct/direct-strategy.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { editsSchema } from "../../../src/engine/lpw/schemas.ts";
import { lpwStrategy } from "../../../src/engine/lpw/lpw-strategy.ts";
import { Stop, StrategyRun } from "../../../src/engine/run/strategy-run.ts";
import type { Outcome, ProgressEvent, Strategy, Task } from "../../../src/engine/task.ts";
import { templateStrategy } from "../../../src/engine/template/template-strategy.ts";
import type { LlmClient } from "../../../src/llm/llm-client.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../../src/verify/runners/pytest-plugin.ts";
import { writeFileSync } from "node:fs";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../../support/python-task.ts";

useHttpMock();

const LIB = "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n";
const REPO = {
  "calc/__init__.py": "",
  "calc/lib.py": LIB,
  "tests/test_add.py": "from calc.lib import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
  "tests/test_sub.py": "from calc.lib import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n",
};
const FAILING = "tests/test_add.py::test_add";
const BOTH = LIB.replace(/a - b/g, "a + b");
const FIXED = LIB.replace("a - b", "a + b");

async function task(files: Record<string, string> = REPO): Promise<{ task: Task; events: ProgressEvent[] }> {
  const dir = await writeRepo(files);
  const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
  const events: ProgressEvent[] = [];
  return {
    events,
    task: {
      workspace: dir,
      visible: { kind: "tests", ids: [FAILING] },
      regression: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox: { ...sandbox, env: withPytestPlugin(PYTEST_ENV) },
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
      description: "add subtracts its arguments",
      onProgress: (event) => events.push(event),
    },
  };
}

const attemptsSeen = (events: ProgressEvent[]) =>
  events.flatMap((e) => (e.kind === "attempt" ? [[e.index, e.total]] : []));
const replace = (search: string, replace: string) => [
  { kind: "replace" as const, path: "calc/lib.py", search, replace },
];

describe("the shared run harness", () => {
  it("takes the baseline: the visible run and the regression suite's, both kept as evidence", async () => {
    const { task: t } = await task();
    const run = new StrategyRun(t, "probe");
    const base = await run.baseline();
    expect(base.failing.map((f) => f.id)).toEqual([FAILING]);
    expect(run.outcome.evidence.before).toMatchObject({ passed: 0, failed: 1 });
    expect(run.outcome.evidence.regressionBefore).toMatchObject({ passed: 1, failed: 1 });
    expect(run.outcome.cost.testRuns).toBe(2);
  });

  it("takes the job's run of the whole suite as the regression suite's baseline, and a visible test that looped there as its own", async () => {
    const { task: t } = await task();
    const suiteBefore = await t.verifier.run(t.workspace, { kind: "all" });
    const runs: string[] = [];
    const verifier: Task["verifier"] = {
      run: (workspace, selection, ...rest) => {
        runs.push(selection.kind);
        return t.verifier.run(workspace, selection, ...rest);
      },
    };
    const run = new StrategyRun({ ...t, verifier, suiteBefore }, "probe");
    const base = await run.baseline();
    // The failing visible test is run once more on its own (one that passes now was flaky); the suite is not.
    expect(runs).toEqual(["tests"]);
    expect(base.failing.map((f) => f.id)).toEqual([FAILING]);
    expect(run.outcome.evidence.before).toMatchObject({ passed: 0, failed: 1 });
    expect(run.outcome.evidence.regressionBefore).toMatchObject({ passed: 1, failed: 1 });
    expect(run.outcome.cost.testRuns).toBe(1);
    // A visible test our per-test limit stopped in the suite run is not run to the limit again.
    const looped = {
      ...suiteBefore,
      tests: suiteBefore.tests.map((c) =>
        c.id === FAILING ? { ...c, message: "Failed: timed out after 1.2 s of CPU time (autogen per-test limit)" } : c,
      ),
    };
    const loopRun = new StrategyRun({ ...t, verifier, suiteBefore: looped }, "probe");
    expect((await loopRun.baseline()).failing.map((f) => f.id)).toEqual([FAILING]);
    expect(runs).toEqual(["tests"]);
    expect(loopRun.outcome.cost.testRuns).toBe(0);
    // A regression gate narrower than the whole suite is run as before.
    const narrow = new StrategyRun({ ...t, verifier, suiteBefore, regression: { kind: "tests", ids: [FAILING] } }, "p");
    await narrow.baseline();
    expect(runs).toEqual(["tests", "tests", "tests"]);
  });

  it("stops on nothing to fix and on a test command that loads no test", async () => {
    const passing = await task({ ...REPO, "calc/lib.py": FIXED });
    const stop = await new StrategyRun(passing.task, "probe").baseline().catch((error: unknown) => error);
    expect(stop).toBeInstanceOf(Stop);
    expect(stop).toMatchObject({
      reason: "nothing-to-fix",
      message: "every visible test already passes; there is nothing to repair",
    });
    const empty = await task({ "calc/__init__.py": "", "calc/lib.py": LIB });
    const run = new StrategyRun({ ...empty.task, visible: { kind: "all" } }, "probe");
    const outcome = await run.run(async () =>
      run.finish("solved", `not reached ${(await run.baseline()).before.tests.length}`),
    );
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "broken-tests" });
    expect(outcome.message).toMatch(/^the test command is broken: it ran no test/);
  });

  it("runs the regression gate: a candidate that breaks a test that passed before is recorded as such and never accepted", async () => {
    const { task: t, events } = await task();
    const run = new StrategyRun(t, "probe");
    const outcome = await run.run(async () => {
      await run.baseline();
      const breaks = await run.tryEdits(replace(LIB, BOTH), { description: "both" });
      expect(breaks.attempt).toMatchObject({
        index: 1,
        result: "regression-failed",
        file: "calc/lib.py",
        passed: 1,
        failed: 1,
      });
      expect(() => run.accept(breaks.attempt)).toThrow(/regression-failed, not plausible/);
      expect(run.outcome.evidence.after).toBeUndefined();
      await run.changes.restore();
      const wrong = await run.tryEdits(replace("return a - b\n\n", "return a * b\n\n"), { description: "times" });
      expect(wrong.attempt).toMatchObject({ index: 2, result: "still-failing", passed: 0, failed: 1 });
      await run.changes.restore();
      const missing = await run.tryEdits(replace("no such text", "x"), { description: "missing" });
      expect(missing.attempt).toMatchObject({
        index: 3,
        result: "edit-failed",
        description: "missing: the edits did not apply",
      });
      const right = await run.tryEdits(replace(LIB, FIXED), { description: "right" });
      expect(right.attempt).toMatchObject({ index: 4, result: "plausible", passed: 1, failed: 0 });
      run.accept(right.attempt);
      return run.finish("solved", "fixed");
    });
    expect(outcome).toMatchObject({ status: "fixed", changedFiles: ["calc/lib.py"], closestAttempt: undefined });
    expect(outcome.evidence.after).toMatchObject({ passed: 1, failed: 0 });
    expect(outcome.evidence.regressionAfter).toMatchObject({ passed: 2, failed: 0 });
    expect(outcome.diff).toContain("-    return a - b\n+    return a + b\n");
    expect(await readFile(join(t.workspace, "calc/lib.py"), "utf8")).toBe(FIXED);
    // baseline 2; both: visible + regression; times: visible; right: visible + regression.
    expect(outcome.cost).toMatchObject({ testRuns: 7, candidatesGenerated: 4, candidatesTried: 4, llmCalls: 0 });
    expect(attemptsSeen(events)).toEqual([
      [1, 10],
      [2, 10],
      [3, 10],
      [4, 10],
    ]);
  });

  it("runs the failing tests once when they are all the visible tests and no warm runner ran them", async () => {
    const { task: t } = await task();
    const run = new StrategyRun(t, "probe");
    await run.run(async () => {
      await run.baseline();
      expect(run.outcome.cost.testRuns).toBe(2);
      writeFileSync(join(t.workspace, "calc/lib.py"), BOTH);
      const broke = await run.validate({ description: "both" }, { first: { kind: "tests", ids: [FAILING] } });
      // The failing test's run is the visible run; then the regression suite.
      expect(broke.attempt).toMatchObject({ result: "regression-failed", passed: 1, failed: 1 });
      expect(run.outcome.cost.testRuns).toBe(4);
      writeFileSync(join(t.workspace, "calc/lib.py"), FIXED);
      const right = await run.validate({ description: "right" }, { first: { kind: "tests", ids: [FAILING] } });
      expect(right.attempt).toMatchObject({ result: "plausible", passed: 1, failed: 0 });
      expect(run.outcome.cost.testRuns).toBe(6);
      // Other tests first (here the whole suite): the visible tests' results come from the regression gate's run.
      const wider = await run.validate({ description: "right, all first" }, { first: { kind: "all" } });
      expect(wider.attempt).toMatchObject({ result: "plausible", passed: 1, failed: 0 });
      expect(run.outcome.cost.testRuns).toBe(8);
      return run.finish("iterations", "probe");
    });
  });

  it("takes the visible tests' results from the regression gate's cold run after a warm run of the failing tests", async () => {
    const { task: t } = await task();
    const verifier = localVerifier(pytestRunner([], "t"), { timeoutMs: 30_000, env: PYTEST_ENV, warm: true });
    const visible = { kind: "tests" as const, ids: [FAILING, "tests/test_sub.py::test_sub"] };
    const twoVisible: Task = { ...t, visible, verifier };
    const run = new StrategyRun(twoVisible, "probe");
    const warm = verifier.openWarm?.(twoVisible.workspace);
    expect(warm).toBeDefined();
    const first = { kind: "tests" as const, ids: [FAILING] };
    onTestFinished(() => warm?.close());
    await run.run(async () => {
      await run.baseline();
      expect(run.outcome.cost.testRuns).toBe(2);
      // The failing test passes warm; the whole suite runs cold once and shows test_sub, a visible test, broken.
      writeFileSync(join(t.workspace, "calc/lib.py"), BOTH);
      const broke = await run.validate({ description: "both" }, { first, warm });
      expect(broke.attempt).toMatchObject({ result: "visible-regressed", passed: 1, failed: 1 });
      expect(broke.report.run.argv.some((a) => a.includes("test_sub"))).toBe(false);
      expect(run.outcome.cost.testRuns).toBe(4);
      writeFileSync(join(t.workspace, "calc/lib.py"), FIXED);
      const right = await run.validate(
        { description: "right" },
        { first, warm, diff: () => ({ diff: "d", files: ["calc/lib.py"] }) },
      );
      expect(right.attempt).toMatchObject({ result: "plausible", passed: 2, failed: 0 });
      expect(run.outcome.cost.testRuns).toBe(6);
      run.accept(right.attempt);
      return run.finish("solved", "fixed");
    });
    expect(warm?.stats.warm).toBe(2);
    // Both kinds of evidence are the same cold run: the visible tests by their ids, the gate's every test.
    expect(run.outcome.evidence.after).toMatchObject({ passed: 2, failed: 0 });
    expect(run.outcome.evidence.after?.tests.map((x) => x.id).sort()).toEqual([FAILING, "tests/test_sub.py::test_sub"]);
    expect(run.outcome.evidence.regressionAfter).toMatchObject({ passed: 2, failed: 0 });
    expect(run.outcome.evidence.after?.command).toEqual(run.outcome.evidence.regressionAfter?.command);
  });

  it("releases attempts in candidate order whichever finishes first, and keeps the closest attempt by that order", async () => {
    const { task: t, events } = await task();
    const run = new StrategyRun(t, "probe");
    const outcome = await run.run(async () => {
      await run.baseline();
      // Candidate 2 is validated (and finishes) before candidate 1, as a faster slot would.
      writeFileSync(join(t.workspace, "calc/lib.py"), BOTH);
      await run.validate(
        { index: 2, description: "second" },
        { first: { kind: "tests", ids: [FAILING] }, diff: () => ({ diff: "second's diff", files: ["calc/lib.py"] }) },
      );
      expect(attemptsSeen(events)).toEqual([]);
      writeFileSync(join(t.workspace, "calc/lib.py"), LIB.replace("a - b", "b - a"));
      await run.validate(
        { index: 1, description: "first" },
        { first: { kind: "tests", ids: [FAILING] }, diff: () => ({ diff: "first's diff", files: ["calc/lib.py"] }) },
      );
      writeFileSync(join(t.workspace, "calc/lib.py"), LIB);
      return run.finish("exhausted", "none passed");
    });
    expect(attemptsSeen(events)).toEqual([
      [1, 10],
      [2, 10],
    ]);
    expect(outcome.attempts.map((a) => [a.index, a.description, a.result])).toEqual([
      [1, "first", "still-failing"],
      [2, "second", "regression-failed"],
    ]);
    // The regression-failed candidate passed the most tests: it is the closest attempt, not the fix.
    expect(outcome).toMatchObject({
      status: "not-fixed",
      closestAttempt: { diff: "second's diff", passed: 1, failed: 1 },
    });
    expect(outcome.evidence.after).toBeUndefined();
  });

  it("counts only the model spend of its own run, and the seconds of every test run", async () => {
    scriptAnswers([
      { stage: "generate", content: { edits: replace("x", "y") }, usage: { prompt: 1000, completion: 500 } },
      { stage: "generate", content: { edits: replace("x", "y") }, usage: { prompt: 100, completion: 20 } },
    ]);
    const llm = testLlm();
    const ask = (l: LlmClient) =>
      l.call("generate", { untrusted: { problem: "p", failures: "f", code: "c" } }, editsSchema);
    await ask(llm); // spent before the run: another strategy's or the reproduction's
    const { task: t } = await task();
    const run = new StrategyRun(t, "probe", { llm });
    const outcome = await run.run(async () => {
      await run.baseline();
      await ask(llm);
      run.countTestRuns(3, 1500);
      return run.finish("exhausted", "done");
    });
    expect(outcome.cost).toMatchObject({ llmCalls: 1, promptTokens: 100, completionTokens: 20, testRuns: 5 });
    expect(outcome.cost.dollars).toBeCloseTo((100 * 0.15 + 20 * 0.6) / 1_000_000, 12);
    expect(outcome.cost.testSeconds).toBeGreaterThan(1.5);
    expect(Math.round(outcome.cost.testSeconds * 1000) / 1000).toBe(outcome.cost.testSeconds);
    expect(outcome.cost.wallSeconds).toBeGreaterThanOrEqual(outcome.cost.testSeconds - 1.5);
  });
});

describe("template, LPW and direct on one task", () => {
  const fields = (outcome: Outcome) => ({
    status: outcome.status,
    stopReason: outcome.stopReason,
    changedFiles: outcome.changedFiles,
    evidence: Object.keys(outcome.evidence).sort(),
    after: outcome.evidence.after && { passed: outcome.evidence.after.passed, failed: outcome.evidence.after.failed },
    regressionAfter: outcome.evidence.regressionAfter && {
      passed: outcome.evidence.regressionAfter.passed,
      failed: outcome.evidence.regressionAfter.failed,
    },
    sorted: outcome.attempts.every((a, i) => a.index === i + 1),
    lastAttempt: outcome.attempts.at(-1)?.result,
    everyAttemptNamesItsFile: outcome.attempts.every((a) => a.file === "calc/lib.py"),
    triedEveryAttempt: outcome.cost.candidatesTried === outcome.attempts.length,
    closestAttempt: outcome.closestAttempt,
  });

  async function solve(strategy: (llm: LlmClient) => Strategy, answers: Parameters<typeof scriptAnswers>[0]) {
    scriptAnswers(answers);
    const llm = testLlm();
    const { task: t, events } = await task();
    const outcome = await strategy(llm).run(t);
    expect(await readFile(join(t.workspace, "calc/lib.py"), "utf8")).toBe(FIXED);
    expect(attemptsSeen(events).map(([index]) => index)).toEqual(outcome.attempts.map((a) => a.index));
    expect(outcome.cost.testRuns).toBeGreaterThan(outcome.attempts.length);
    expect(outcome.cost.testSeconds).toBeGreaterThan(0);
    expect(outcome.cost.wallSeconds).toBeGreaterThan(0);
    expect(outcome.cost.llmCalls).toBe(answers.length);
    return outcome;
  }

  it("fill the same Outcome fields, and the regression gate rejects the same candidate in the LLM strategies", async () => {
    const same = {
      status: "fixed",
      stopReason: "solved",
      changedFiles: ["calc/lib.py"],
      evidence: ["after", "before", "regressionAfter", "regressionBefore"],
      after: { passed: 1, failed: 0 },
      regressionAfter: { passed: 2, failed: 0 },
      sorted: true,
      lastAttempt: "plausible",
      everyAttemptNamesItsFile: true,
      triedEveryAttempt: true,
      closestAttempt: undefined,
    };

    const template = await solve(() => templateStrategy, []);
    expect(fields(template)).toEqual(same);

    const breakBoth = { edits: replace(LIB, BOTH) };
    const restoreSub = { edits: replace("def sub(a, b):\n    return a + b", "def sub(a, b):\n    return a - b") };
    const direct = await solve(
      (llm) => directStrategy({ llm }),
      [
        { stage: "generate", content: breakBoth },
        { stage: "self-debug", content: restoreSub },
      ],
    );
    expect(fields(direct)).toEqual(same);
    expect(direct.attempts.map((a) => [a.index, a.result])).toEqual([
      [1, "regression-failed"],
      [2, "plausible"],
    ]);

    const lpw = await solve(
      (llm) => lpwStrategy({ llm, planVerification: false, instrumentedDebug: false, codeExplanation: false }),
      [
        { stage: "plan", content: { steps: ["Add the arguments in add"] } },
        { stage: "implement", content: breakBoth },
        { stage: "analyze-error", content: { divergence: "sub now adds", fix: "leave sub alone" } },
        { stage: "refine", content: restoreSub },
      ],
    );
    expect(fields(lpw)).toEqual(same);
    expect(lpw.attempts.map((a) => [a.index, a.result])).toEqual([
      [1, "regression-failed"],
      [2, "plausible"],
    ]);
    // The gate ran on the same candidate with the same runs: visible then the whole suite.
    expect(lpw.attempts[0]).toMatchObject({ passed: direct.attempts[0]?.passed, failed: direct.attempts[0]?.failed });
    expect(lpw.cost.testRuns).toBe(direct.cost.testRuns);
  });
});
