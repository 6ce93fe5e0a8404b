// The `direct` baseline: generate, then self-debug from test output only.
import { describe, expect, it } from "vitest";
import { directStrategy } from "../../src/engine/direct/direct-strategy.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const edit = (search: string, replace: string) => ({ edits: [{ kind: "replace", path: "lib.py", search, replace }] });

describe("direct strategy", () => {
  it("generates, then self-debugs from the test output, never calling a plan stage", async () => {
    scriptAnswers([
      { stage: "generate", content: edit("return a - b", "return a * b") },
      { stage: "self-debug", content: edit("return a * b", "return a + b") },
    ]);
    const dir = await writeRepo({
      "lib.py": "def add(a, b):\n    return a - b\n",
      "test_lib.py": "from lib import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    });
    const llm = testLlm();
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await directStrategy({ llm }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
    });
    expect(llm.sink.entries.map((e) => e.stage)).toEqual(["generate", "self-debug"]);
    expect(outcome).toMatchObject({
      strategy: "direct",
      status: "fixed",
      stopReason: "solved",
      changedFiles: ["lib.py"],
    });
    expect(outcome.attempts.map((a) => [a.description, a.result])).toEqual([
      ["generate", "still-failing"],
      ["self-debug", "plausible"],
    ]);
    expect(outcome.cost).toMatchObject({
      llmCalls: 2,
      promptTokens: 200,
      completionTokens: 40,
      testRuns: 3,
      candidatesTried: 2,
    });
    expect(outcome.plan.steps).toBeUndefined();
  });
});
