// SLPW's control flow with scripted answers over HTTP and real test runs.
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { slpwStrategy } from "../../src/engine/slpw/slpw-strategy.ts";
import { renderReport } from "../../src/report/render-report.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const verification = (matches: boolean, revisedPlan?: { steps: string[] }) => ({
  tests: [
    {
      test: "test_add",
      steps: [{ step: 1, value: matches ? "5" : "6" }],
      derived: matches ? "5" : "6",
      expected: "5",
      matches,
    },
  ],
  ...(revisedPlan ? { revisedPlan } : {}),
});

describe("SLPW", () => {
  it("samples k plans, lets UCB pick which to verify (revisions keep their parent's arm), carries q, refines the chosen program", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["Multiply a and b"] } },
      { stage: "plan", content: { steps: ["Add a and b"] } },
      { stage: "verify-plan", content: verification(false, { steps: ["Subtract b from a"] }) },
      { stage: "verify-plan", content: verification(true) },
      {
        stage: "implement",
        content: { edits: [{ kind: "replace", path: "lib.py", search: "return a - b", replace: "return a * b" }] },
      },
      { stage: "analyze-error", content: { divergence: "the code multiplies where the plan adds", fix: "add" } },
      {
        stage: "refine",
        content: { edits: [{ kind: "replace", path: "lib.py", search: "return a * b", replace: "return a + b" }] },
      },
    ]);
    const dir = await writeRepo({
      "lib.py": "def add(a, b):\n    return a - b\n",
      "test_lib.py":
        "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    });
    const llm = testLlm();
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await slpwStrategy({ llm, planSamples: 2, verifiedPlans: 1 }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 50, minutes: 5 },
    });

    expect(llm.sink.entries.map((e) => e.stage)).toEqual([
      "plan",
      "plan",
      "verify-plan",
      "verify-plan",
      "implement",
      "analyze-error",
      "refine",
    ]);
    // UCB: the first plan is tried first; its revision inherits one pull, so the untried second plan goes next.
    expect(requests[2]?.messages[1]?.content).toContain("1. Multiply a and b");
    expect(requests[3]?.messages[1]?.content).toContain("1. Add a and b");
    expect(requests[4]?.messages[1]?.content).toContain("1. Add a and b");
    expect(outcome).toMatchObject({
      strategy: "slpw",
      status: "fixed",
      stopReason: "solved",
      plan: { steps: ["Add a and b"], verified: true },
    });
    expect(outcome.attempts.map((a) => [a.description, a.passed, a.failed])).toEqual([
      ["implementation of plan p2", 1, 1],
      ["refinement of prog-p2", 2, 0],
    ]);
    expect(outcome.cost).toMatchObject({ llmCalls: 7, candidatesGenerated: 2 });
    // The report names the program that passed: the refinement, not plan p2's first program (which failed a test).
    expect(outcome.plan.search).toMatchObject({
      implemented: ["p2"],
      chosen: "p2",
      programs: [
        { id: "prog-p2", plan: "p2", passed: 1, of: 2 },
        { id: "prog-p2.r1", plan: "p2", parent: "prog-p2", passed: 2, of: 2 },
      ],
      chosenProgram: "prog-p2.r1",
    });
    const report = renderReport(outcome, { title: "t" });
    expect(report).toContain(
      "Programs were made from `p2`; the fix is the program of plan `p2`, refined (`prog-p2.r1`).",
    );
    expect(report).toContain(
      "Programs run, with the visible tests each passed: `prog-p2` (plan `p2`) 1 of 2; `prog-p2.r1` (refinement of `prog-p2`) 2 of 2.",
    );
  });
});
