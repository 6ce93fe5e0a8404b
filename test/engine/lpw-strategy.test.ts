// LPW with scripted model answers over HTTP (the real openai SDK), real edits and real
// test runs in fixture repositories. Each test checks the stages called, in order, and
// the numbers in the Outcome.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { lpwStrategy, type LpwOptions } from "../../src/engine/lpw/lpw-strategy.ts";
import { withReproduction } from "../../src/engine/reproduce/with-reproduction.ts";
import type { Outcome, VisibleTests } from "../../src/engine/task.ts";
import type { BudgetCaps } from "../../src/llm/budget.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm, type ScriptedAnswer } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const CART =
  "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n\n\ndef count(prices):\n    return len(prices)\n";
const PY_REPO = {
  "shop/__init__.py": "",
  "shop/cart.py": CART,
  "tests/test_cart.py":
    "from shop.cart import count, total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_count():\n    assert count([1, 2]) == 2\n",
};
const FAILING = "tests/test_cart.py::test_total_applies_discount";

const PLAN = {
  stage: "plan",
  content: { steps: ["Sum the prices", "Subtract the discount from the sum", "Return the result"] },
};
const VERIFIED = {
  stage: "verify-plan",
  content: {
    tests: [
      {
        test: "test_total_applies_discount",
        steps: [
          { step: 1, value: "30" },
          { step: 2, value: "25" },
          { step: 3, value: "25" },
        ],
        derived: "25",
        expected: "25",
        matches: true,
      },
    ],
  },
};
const edit = (search: string, replace: string) => ({
  edits: [{ kind: "replace", path: "shop/cart.py", search, replace }],
});
const IMPLEMENT_RIGHT = {
  stage: "implement",
  content: edit("return subtotal + discount", "return subtotal - discount"),
};
const INSTRUMENT = {
  stage: "instrument",
  content: {
    edits: [
      {
        kind: "replace",
        path: "shop/cart.py",
        search: "    subtotal = sum(prices)\n",
        replace:
          "    subtotal = sum(prices)\n    import sys; print('AUTOGEN-TRACE step1', subtotal, file=sys.stderr)\n",
      },
    ],
  },
};
const ANALYSIS = (divergence: string) => ({
  stage: "analyze-error",
  content: { divergence, fix: "subtract the discount from the subtotal" },
});
const EXPLAIN = {
  stage: "explain",
  content: { explanation: "total sums the prices and combines the discount with the sum" },
};

async function runLpw(
  files: Record<string, string>,
  answers: ScriptedAnswer[],
  options: { caps?: Partial<BudgetCaps>; lpw?: Partial<LpwOptions>; visible?: VisibleTests; description?: string } = {},
) {
  scriptAnswers(answers);
  const dir = await writeRepo(files);
  const llm = testLlm(options.caps);
  const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
  const runner = detectRunner(dir);
  const outcome = await withReproduction(lpwStrategy({ llm, ...options.lpw }), llm).run({
    workspace: dir,
    visible: options.visible ?? { kind: "tests", ids: [FAILING] },
    regression: { kind: "all" },
    verifier: localVerifier(runner, sandbox),
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 50, minutes: 10 },
    description: options.description ?? "The discount is added to the total instead of subtracted.",
  });
  return { outcome, stages: llm.sink.entries.map((e) => e.stage), dir, llm };
}

function expectCost(outcome: Outcome, calls: number, testRuns: number): void {
  expect(outcome.cost.llmCalls).toBe(calls);
  expect(outcome.cost.promptTokens).toBe(calls * 100);
  expect(outcome.cost.completionTokens).toBe(calls * 20);
  // gpt-4o-mini list price: $0.15 per million prompt tokens, $0.60 per million completion tokens.
  expect(outcome.cost.dollars).toBeCloseTo((calls * 100 * 0.15 + calls * 20 * 0.6) / 1_000_000, 12);
  expect(outcome.cost.testRuns).toBe(testRuns);
}

describe("LPW", () => {
  it("fixes a bug on the first implementation of a verified plan", async () => {
    const { outcome, stages, dir } = await runLpw(PY_REPO, [PLAN, VERIFIED, IMPLEMENT_RIGHT]);
    expect(stages).toEqual(["plan", "verify-plan", "implement"]);
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved", changedFiles: ["shop/cart.py"] });
    expect(outcome.plan).toMatchObject({
      steps: PLAN.content.steps,
      verified: true,
      planIterations: 1,
      verification: [{ test: "test_total_applies_discount", derived: "25", expected: "25", matches: true }],
    });
    expect(outcome.attempts).toEqual([
      {
        index: 1,
        description: "implementation of the plan",
        result: "plausible",
        passed: 1,
        failed: 0,
        analysis: undefined,
        file: "shop/cart.py",
      },
    ]);
    // before, regression baseline, after the implementation, regression after.
    expectCost(outcome, 3, 4);
    expect(outcome.evidence.regressionAfter).toMatchObject({ passed: 2, failed: 0 });
    expect(outcome.diff).toContain("-    return subtotal + discount\n+    return subtotal - discount");
    expect(await readFile(join(dir, "shop/cart.py"), "utf8")).toContain("subtotal - discount");
  });

  it("revises a plan that fails its verification, then fixes", async () => {
    const wrong = {
      stage: "verify-plan",
      content: {
        tests: [
          {
            test: "test_total_applies_discount",
            steps: [
              { step: 1, value: "30" },
              { step: 2, value: "35" },
            ],
            derived: "35",
            expected: "25",
            matches: false,
          },
        ],
        revisedPlan: { steps: ["Sum the prices", "Subtract the discount", "Return it"] },
      },
    };
    const plan = { stage: "plan", content: { steps: ["Sum the prices", "Add the discount", "Return it"] } };
    const { outcome, stages } = await runLpw(PY_REPO, [plan, wrong, VERIFIED, IMPLEMENT_RIGHT]);
    expect(stages).toEqual(["plan", "verify-plan", "verify-plan", "implement"]);
    expect(outcome.plan).toMatchObject({
      steps: ["Sum the prices", "Subtract the discount", "Return it"],
      verified: true,
      planIterations: 2,
    });
    expect(outcome.stopReason).toBe("solved");
    expectCost(outcome, 4, 4);
  });

  it("needs two refinements guided by the error analysis of instrumented runs", async () => {
    const { outcome, stages, llm } = await runLpw(PY_REPO, [
      PLAN,
      VERIFIED,
      { stage: "implement", content: edit("return subtotal + discount", "return subtotal - discount()") },
      INSTRUMENT,
      ANALYSIS("step 2 calls the discount instead of subtracting it"),
      EXPLAIN,
      { stage: "refine", content: edit("return subtotal - discount()", "return subtotal * discount") },
      INSTRUMENT,
      ANALYSIS("step 2 multiplies where the plan subtracts"),
      EXPLAIN,
      { stage: "refine", content: edit("return subtotal * discount", "return subtotal - discount") },
    ]);
    expect(stages).toEqual([
      "plan",
      "verify-plan",
      "implement",
      "instrument",
      "analyze-error",
      "explain",
      "refine",
      "instrument",
      "analyze-error",
      "explain",
      "refine",
    ]);
    expect(outcome.stopReason).toBe("solved");
    expect(outcome.attempts.map((a) => [a.description, a.result, a.analysis])).toEqual([
      ["implementation of the plan", "still-failing", undefined],
      [
        "refinement",
        "still-failing",
        "step 2 calls the discount instead of subtracting it → subtract the discount from the subtotal",
      ],
      [
        "refinement",
        "plausible",
        "step 2 multiplies where the plan subtracts → subtract the discount from the subtotal",
      ],
    ]);
    // The error analysis saw the trace of the instrumented run, taken in a scratch copy.
    const analysisPrompt = llm.sink.entries.find((e) => e.stage === "analyze-error")?.messages[1]?.content ?? "";
    expect(analysisPrompt).toContain("AUTOGEN-TRACE step1 30");
    // The explain call asks about this test's run: the test, how it fails, and where it parted from the plan.
    const explainPrompt = llm.sink.entries.find((e) => e.stage === "explain")?.messages[1]?.content ?? "";
    expect(explainPrompt).toContain("def test_total_applies_discount");
    expect(explainPrompt).toContain(
      "Where it parts from the plan: step 2 calls the discount instead of subtracting it",
    );
    expect(explainPrompt).toMatch(/Your step: explain what this code does on that test's input/);
    // before, baseline, 3 candidate runs, 2 instrumented runs, regression after.
    expectCost(outcome, 11, 8);
    expect(outcome.diff).not.toContain("AUTOGEN-TRACE");
  });

  it("repairs a malformed answer and goes on", async () => {
    const { outcome, stages } = await runLpw(PY_REPO, [
      { stage: "plan", raw: "Sure! Here is my plan: subtract." },
      PLAN,
      VERIFIED,
      IMPLEMENT_RIGHT,
    ]);
    expect(stages).toEqual(["plan", "plan", "verify-plan", "implement"]);
    expect(outcome.stopReason).toBe("solved");
    expectCost(outcome, 4, 4);
  });

  it("fails the stage cleanly when an answer stays malformed, leaving the code as it was", async () => {
    const { outcome, stages, dir } = await runLpw(PY_REPO, [
      PLAN,
      { stage: "verify-plan", raw: "{}" },
      { stage: "verify-plan", raw: '{"tests": "all good"}' },
    ]);
    expect(stages).toEqual(["plan", "verify-plan", "verify-plan"]);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "error" });
    expect(outcome.message).toMatch(
      /^the verify-plan stage failed: the answer does not match the schema after one repair: tests:/,
    );
    expectCost(outcome, 3, 2);
    expect(await readFile(join(dir, "shop/cart.py"), "utf8")).toBe(CART);
  });

  it("stops when the budget runs out mid-run, spending no more than the cap", async () => {
    const { outcome, stages, dir } = await runLpw(PY_REPO, [PLAN, VERIFIED], { caps: { llmCalls: 2 } });
    expect(stages).toEqual(["plan", "verify-plan"]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "budget",
      message: "budget exhausted: 2 of 2 model calls used",
    });
    expectCost(outcome, 2, 2);
    expect(await readFile(join(dir, "shop/cart.py"), "utf8")).toBe(CART);
  });

  it("detects a stuck loop: re-implements from the plan on the second identical failure, stops on the third", async () => {
    const same = edit("return subtotal + discount", "return subtotal + discount + 0");
    const { outcome, stages, dir } = await runLpw(PY_REPO, [
      PLAN,
      VERIFIED,
      { stage: "implement", content: same },
      INSTRUMENT,
      ANALYSIS("step 2 adds"),
      EXPLAIN,
      { stage: "refine", content: edit("return subtotal + discount + 0", "return subtotal + discount + 0 * 1") },
      { stage: "implement", content: same },
    ]);
    expect(stages).toEqual([
      "plan",
      "verify-plan",
      "implement",
      "instrument",
      "analyze-error",
      "explain",
      "refine",
      "implement",
    ]);
    expect(outcome.stopReason).toBe("stuck");
    expect(outcome.message).toMatch(
      /^the same failure three times in a row: tests\/test_cart\.py::test_total_applies_discount\|assert N == N/,
    );
    expect(outcome.attempts.map((a) => a.description)).toEqual([
      "implementation of the plan",
      "refinement",
      "re-implementation from the plan",
    ]);
    // before, baseline, implement, instrumented, refine, re-implement.
    expectCost(outcome, 8, 6);
    expect(await readFile(join(dir, "shop/cart.py"), "utf8")).toBe(CART);
  });

  it("rejects a reproduction test that passes on the unchanged code, three times, and stops: could not reproduce", async () => {
    const repro = {
      stage: "reproduce",
      content: {
        path: "tests/test_repro.py",
        content: "from shop.cart import total\n\n\ndef test_repro():\n    assert total([10], 0) == 10\n",
        expectedFailure: "assert 15 == 5",
      },
    };
    const { outcome, stages, dir, llm } = await runLpw(PY_REPO, [repro, repro, repro], {
      visible: { kind: "reproduce" },
    });
    expect(stages).toEqual(["reproduce", "reproduce", "reproduce"]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "not-reproduced",
      message:
        "could not reproduce: all 3 tests the model wrote were rejected; the last: its test(s) pass on the unchanged code (tests/test_repro.py::test_repro), so they do not show the bug",
    });
    // The model was told why each earlier attempt was rejected.
    expect(llm.sink.entries[2]?.messages[1]?.content).toContain(
      "Attempt 2 was rejected: its test(s) pass on the unchanged code (tests/test_repro.py::test_repro)",
    );
    expectCost(outcome, 3, 3);
    await expect(readFile(join(dir, "tests/test_repro.py"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("accepts a reproduction test that fails on the unchanged code and ships it with the fix", async () => {
    const repro = {
      stage: "reproduce",
      content: {
        path: "tests/test_repro.py",
        content: "from shop.cart import total\n\n\ndef test_repro():\n    assert total([10], 5) == 5\n",
        expectedFailure: "assert 15 == 5",
      },
    };
    const { outcome, stages } = await runLpw(PY_REPO, [repro, PLAN, VERIFIED, IMPLEMENT_RIGHT], {
      visible: { kind: "reproduce" },
    });
    expect(stages).toEqual(["reproduce", "plan", "verify-plan", "implement"]);
    expect(outcome.stopReason).toBe("solved");
    expect(outcome.evidence.reproduction).toEqual({
      path: "tests/test_repro.py",
      testId: "tests/test_repro.py::test_repro",
      testIds: ["tests/test_repro.py::test_repro"],
      failure: "assert 15 == 5",
      attempts: 1,
    });
    expect(outcome.changedFiles).toEqual(["shop/cart.py", "tests/test_repro.py"]);
    expect(outcome.evidence.before?.tests).toEqual([
      {
        id: "tests/test_repro.py::test_repro",
        status: "fail",
        message: "assert 15 == 5\n +  where 15 = total([10], 5)",
      },
    ]);
    // reproduction run, before, baseline, candidate, regression after.
    expectCost(outcome, 4, 5);
  });

  it("ablation switches remove exactly their stage", async () => {
    const { outcome, stages, llm } = await runLpw(
      PY_REPO,
      [
        PLAN,
        { stage: "implement", content: edit("return subtotal + discount", "return subtotal * discount") },
        ANALYSIS("multiplies"),
        { stage: "refine", content: edit("return subtotal * discount", "return subtotal - discount") },
      ],
      { lpw: { planVerification: false, codeExplanation: false, instrumentedDebug: false } },
    );
    expect(stages).toEqual(["plan", "implement", "analyze-error", "refine"]);
    expect(outcome).toMatchObject({ stopReason: "solved", plan: { verified: false, planIterations: 0 } });
    // Without a verified plan's walk-through, the implement prompt shows the failing tests themselves.
    const implement = llm.sink.entries.find((e) => e.stage === "implement")?.messages[1]?.content ?? "";
    expect(implement).toContain("The failing tests (the source once");
    expect(implement).not.toContain("Its verification on the tests:");
    expectCost(outcome, 4, 5);
  });

  it("writes down the knowledge the change needs and looks it up in the repository's docs before coding", async () => {
    const files = {
      ...PY_REPO,
      "docs/pricing.md":
        "# Pricing\n\nDiscounts are absolute amounts in cents and are always subtracted from the subtotal.\n",
    };
    const { outcome, stages, llm } = await runLpw(
      files,
      [
        PLAN,
        VERIFIED,
        {
          stage: "knowledge",
          content: { facts: ["sum() adds the prices"], queries: ["discount subtracted subtotal"] },
        },
        IMPLEMENT_RIGHT,
      ],
      { lpw: { knowledge: "on-disk" } },
    );
    expect(stages).toEqual(["plan", "verify-plan", "knowledge", "implement"]);
    const implement = llm.sink.entries.find((e) => e.stage === "implement")?.messages[1]?.content ?? "";
    expect(implement).toContain("- sum() adds the prices");
    expect(implement).toContain("From docs/pricing.md:1:\n# Pricing");
    expect(implement).toContain("always subtracted from the subtotal");
    expect(outcome.stopReason).toBe("solved");
  });

  it("works on a JavaScript repository (node --test)", async () => {
    const js = {
      "package.json": JSON.stringify({ name: "cart", private: true, type: "module", scripts: { test: "node --test" } }),
      "src/cart.js":
        "export function total(prices, discount) {\n  const subtotal = prices.reduce((a, b) => a + b, 0);\n  return subtotal + discount;\n}\n",
      "test/cart.test.js":
        'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { total } from "../src/cart.js";\n\ntest("total applies the discount", () => {\n  assert.equal(total([10, 20], 5), 25);\n});\n\ntest("total without discount", () => {\n  assert.equal(total([1, 2], 0), 3);\n});\n',
    };
    const fix = {
      stage: "implement",
      content: {
        edits: [
          {
            kind: "replace",
            path: "src/cart.js",
            search: "return subtotal + discount;",
            replace: "return subtotal - discount;",
          },
        ],
      },
    };
    const { outcome, stages } = await runLpw(js, [PLAN, VERIFIED, fix], {
      visible: { kind: "tests", ids: ["test/cart.test.js > total applies the discount"] },
    });
    expect(stages).toEqual(["plan", "verify-plan", "implement"]);
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved", changedFiles: ["src/cart.js"] });
    expect(outcome.evidence.regressionAfter).toMatchObject({ passed: 2, failed: 0 });
    expectCost(outcome, 3, 4);
  });
});
