// A mechanical (template) edit passes the tests by construction: with a model configured it
// ships only if the model, shown the issue and the diff, accepts it; without one it is
// "not reviewed". The model starts first: LPW's own stages run before any template edit.
// Scripted model answers over HTTP, real pytest runs.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import { chooseStrategy } from "../../src/engine/build-task.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm, type ScriptedAnswer } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const OPS = "def add(a, b):\n    return a - b\n";
const LIB = {
  "calc/__init__.py": "",
  "calc/ops.py": OPS,
  "tests/test_ops.py":
    "from calc.ops import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n\n\ndef test_add_two():\n    assert add(2, 3) == 5\n",
};
const ISSUE = "add(2, 3) returns -1; it should return 5.";
const REFUSE = {
  stage: "review-fix",
  content: { accepted: false, reason: "add(-2, 3) would still be wrong in the caller's units" },
};
const ACCEPT = {
  stage: "review-fix",
  content: { accepted: true, reason: "a + b is the sum the issue asks for, on every input" },
};

async function run(name: string, answers: ScriptedAnswer[], withModel = true, strategy: Record<string, unknown> = {}) {
  const { requests } = scriptAnswers(answers);
  const dir = await writeRepo(LIB);
  const llm = withModel ? testLlm() : undefined;
  const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
  const runner = detectRunner(dir);
  const config = repoConfigSchema.parse({
    strategy: {
      maxRefinements: 1,
      maxPlanIterations: 1,
      instrumentedDebug: false,
      codeExplanation: false,
      ...strategy,
    },
  });
  const chosen = chooseStrategy({ name, config, llm });
  const outcome = await chosen.run({
    workspace: dir,
    visible: { kind: "all" },
    regression: { kind: "all" },
    verifier: localVerifier(runner, sandbox),
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 40, minutes: 5 },
    description: ISSUE,
  });
  return { outcome, dir, requests, stages: llm?.sink.entries.map((e) => e.stage) ?? [] };
}

describe("a template edit and the model's review", { timeout: 300_000 }, () => {
  it("refused by the model: not fixed, the reason kept, the code untouched", async () => {
    const { outcome, dir, requests, stages } = await run("template", [REFUSE]);
    expect(stages).toEqual(["review-fix"]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "refused",
      review: { verdict: "refused", reason: REFUSE.content.reason },
    });
    expect(outcome.message).toContain(`the model refused 1 edit(s) that pass the tests: `);
    expect(outcome.message).toContain(REFUSE.content.reason);
    expect(outcome.attempts.filter((a) => a.result === "refused")).toMatchObject([
      { reason: REFUSE.content.reason, file: "calc/ops.py", line: 2 },
    ]);
    expect(outcome.diff).toBe("");
    expect(await readFile(join(dir, "calc/ops.py"), "utf8")).toBe(OPS);
    // The model saw the issue, the diff and the tests it makes pass.
    const prompt = requests[0]?.messages.map((m) => m.content).join("\n") ?? "";
    expect(prompt).toContain(ISSUE);
    expect(prompt).toContain("+    return a + b");
    expect(prompt).toContain("def test_add_two():");
    // The edited code numbered as every prompt numbers code.
    expect(prompt).toContain("\n1|def add(a, b):\n2|    return a + b\n");
  });

  it("accepted by the model: fixed, and the review says so", async () => {
    const { outcome, dir } = await run("template", [ACCEPT]);
    expect(outcome).toMatchObject({
      status: "fixed",
      review: { verdict: "accepted", reason: ACCEPT.content.reason },
      changedFiles: ["calc/ops.py"],
    });
    expect(outcome.message).toContain("the model reviewed the edit against the issue and accepted it");
    expect(await readFile(join(dir, "calc/ops.py"), "utf8")).toBe("def add(a, b):\n    return a + b\n");
  });

  it("a model configured but giving no review (it refuses to answer): fixed on the tests' word only, marked not reviewed, never called reviewed", async () => {
    const { outcome, stages } = await run("template", [{ stage: "review-fix", refusal: "I cannot review code." }]);
    expect(stages).toContain("review-fix");
    expect(outcome).toMatchObject({
      status: "fixed",
      review: { verdict: "not-reviewed" },
      changedFiles: ["calc/ops.py"],
    });
    expect(outcome.review?.reason).toContain("the model configured to review the edit gave no usable answer");
    expect(outcome.message).not.toContain("accepted");
  });

  it("without a model: fixed on the tests' word, and marked not reviewed", async () => {
    const { outcome } = await run("template", [], false);
    expect(outcome).toMatchObject({ status: "fixed", review: { verdict: "not-reviewed" } });
    expect(outcome.review?.reason).toMatch(/^passes the tests; not reviewed/);
  });

  it("LPW: the model plans first; the template pass runs only after its stages, and its edit still needs the model's review", async () => {
    const wrong = {
      edits: [{ kind: "replace", path: "calc/ops.py", search: "return a - b", replace: "return b - a" }],
    };
    const { outcome, stages, dir } = await run("lpw", [
      { stage: "plan", content: { steps: ["Swap the operands"] } },
      {
        stage: "verify-plan",
        content: {
          tests: [
            { test: "test_add_two", steps: [{ step: 1, value: "1" }], derived: "5", expected: "5", matches: true },
          ],
        },
      },
      { stage: "implement", content: wrong },
      { stage: "analyze-error", content: { divergence: "b - a is 1", fix: "swap back" } },
      {
        stage: "refine",
        content: { edits: [{ kind: "replace", path: "calc/ops.py", search: "return b - a", replace: "return a - b" }] },
      },
      REFUSE,
    ]);
    expect(stages).toEqual(["plan", "verify-plan", "implement", "analyze-error", "refine", "review-fix"]);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "iterations", review: { verdict: "refused" } });
    expect(outcome.message).toContain("then mechanical edits: the model refused 1 edit(s)");
    expect(outcome.attempts.map((a) => a.result)).toContain("refused");
    expect(await readFile(join(dir, "calc/ops.py"), "utf8")).toBe(OPS);
  });
});
