// SEIDR's control flow with scripted answers over HTTP and real test runs.
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { seidrStrategy } from "../../src/engine/seidr/seidr-strategy.ts";
import { renderReport } from "../../src/report/render-report.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const edit = (search: string, replace: string) => ({ edits: [{ kind: "replace", path: "lib.py", search, replace }] });

describe("SEIDR", () => {
  it("drafts across the temperature schedule, keeps the best W, repairs it N times, stops at the first pass", async () => {
    const { requests } = scriptAnswers([
      { stage: "generate", content: edit("return a - b", "return a * b") },
      { stage: "generate", content: edit("return a - b", "return a - b - 1") },
      { stage: "self-debug", content: edit("return a * b", "return a * b + 1") },
      { stage: "self-debug", content: edit("return a * b", "return a + b") },
    ]);
    const dir = await writeRepo({
      "lib.py": "def add(a, b):\n    return a - b\n",
      "test_lib.py":
        "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n\ndef test_zero():\n    assert add(0, 0) == 0\n",
    });
    const llm = testLlm();
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await seidrStrategy({ llm, arity: 2, width: 1 }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 50, minutes: 5 },
    });

    expect(llm.sink.entries.map((e) => e.stage)).toEqual(["generate", "generate", "self-debug", "self-debug"]);
    expect(requests.map((r) => (r as unknown as { temperature: number }).temperature)).toEqual([0, 1, 0, 1]);
    // Only the better draft (a * b passes test_zero) is repaired: its code is what the repairs see.
    expect(requests[2]?.messages[1]?.content).toContain("return a * b");
    expect(requests[2]?.messages[1]?.content).toContain(
      "Make sure test_lib.py::test_add passes; it fails with: assert 6 == 5",
    );
    expect(outcome).toMatchObject({
      strategy: "seidr",
      status: "fixed",
      stopReason: "solved",
      message: "candidate 4 passes the visible tests and the regression gate (EPG 3)",
    });
    expect(outcome.attempts.map((a) => [a.description, a.passed, a.failed])).toEqual([
      ["draft at temperature 0", 1, 1],
      ["draft at temperature 1", 0, 2],
      ["repair of candidate 1 (generation 1)", 0, 2],
      ["repair of candidate 1 (generation 1)", 2, 0],
    ]);
    expect(outcome.cost).toMatchObject({ llmCalls: 4, candidatesGenerated: 4 });
    expect(outcome.diff).toContain("+    return a + b");
    // What the repair-or-replace step chose, for a reader of the report.
    expect(outcome.plan.search).toEqual({
      kind: "seidr",
      drafts: [
        { id: 1, score: 0.5 },
        { id: 2, score: 0 },
      ],
      generations: [
        {
          generation: 1,
          repaired: [{ id: 1, score: 0.5 }],
          replaced: [{ id: 2, score: 0 }],
          children: [
            { id: 3, score: 0, parent: 1 },
            { id: 4, score: 1, parent: 1 },
          ],
        },
      ],
    });
    const report = renderReport(outcome, { title: "t" });
    expect(report).toContain("### Search");
    expect(report).toContain("SEIDR drafts: #1 (0.5), #2 (0)");
    expect(report).toContain(
      "Generation 1: repaired #1 (0.5); replaced (dropped by the ranking) #2 (0); repairs made: #3 from #1 (0), #4 from #1 (1).",
    );
  });
});

describe("SEIDR with LLM-written instructions", () => {
  it("asks for a bug summary per beam candidate and passes it to the repairs", async () => {
    const { requests } = scriptAnswers([
      { stage: "generate", content: edit("return a - b", "return a * b") },
      { stage: "analyze-error", content: { divergence: "multiplies instead of adding", fix: "use +" } },
      { stage: "self-debug", content: edit("return a * b", "return a + b") },
    ]);
    const dir = await writeRepo({
      "lib.py": "def add(a, b):\n    return a - b\n",
      "test_lib.py": "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    });
    const llm = testLlm();
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await seidrStrategy({ llm, arity: 1, width: 1, instructions: "llm" }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
    });
    expect(llm.sink.entries.map((e) => e.stage)).toEqual(["generate", "analyze-error", "self-debug"]);
    expect(requests[2]?.messages[1]?.content).toContain(
      "Bug summary: multiplies instead of adding. Suggested fix: use +",
    );
    expect(outcome.stopReason).toBe("solved");
  });
});
