// The reproduction stage is shared by every LLM strategy (built by name, as the entry
// points build them), and every stage that must answer with edits may answer "no code
// change" instead. Scripted model answers over HTTP, real pytest and node --test runs.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import { chooseStrategy } from "../../src/engine/build-task.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import type { VisibleTests } from "../../src/engine/task.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm, type ScriptedAnswer } from "../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

useHttpMock();

const LIB = {
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n",
  "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add_zero():\n    assert add(0, 0) == 0\n",
};
const ISSUE = "add(2, 3) returns -1; it should return 5.";
const REPRO = {
  stage: "reproduce",
  content: {
    path: "tests/test_add.py",
    content: "from calc.ops import add\n\n\ndef test_add_two_numbers():\n    assert add(2, 3) == 5\n",
    expectedFailure: "assert -1 == 5",
  },
};
const FIX = { edits: [{ kind: "replace", path: "calc/ops.py", search: "return a - b", replace: "return a + b" }] };

async function run(
  name: string,
  files: Record<string, string>,
  answers: ScriptedAnswer[],
  visible: VisibleTests = { kind: "reproduce" },
  description = ISSUE,
  templateFirstPass = true,
) {
  scriptAnswers(answers);
  const dir = await writeRepo(files);
  const llm = testLlm();
  const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
  const runner = detectRunner(dir);
  // As the entry points build it: the repository's defaults, template first pass included.
  const strategy = chooseStrategy({
    name,
    config: repoConfigSchema.parse({ strategy: { treeArity: 1, beamWidth: 1, planSamples: 1, verifiedPlans: 1 } }),
    llm,
    templateFirstPass,
  });
  const outcome = await strategy.run({
    workspace: dir,
    visible,
    regression: { kind: "all" },
    verifier: localVerifier(runner, sandbox),
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 5, minutes: 5 },
    description,
  });
  return { outcome, dir, stages: llm.sink.entries.map((e) => e.stage), llm };
}

describe("the shared reproduction stage", { timeout: 300_000 }, () => {
  it("direct: reproduces, then generates the fix; the new test ships with it", async () => {
    const { outcome, stages } = await run("direct", LIB, [REPRO, { stage: "generate", content: FIX }]);
    expect(stages).toEqual(["reproduce", "generate"]);
    expect(outcome).toMatchObject({
      strategy: "direct",
      status: "fixed",
      changedFiles: ["calc/ops.py", "tests/test_add.py"],
      evidence: { reproduction: { testIds: ["tests/test_add.py::test_add_two_numbers"] } },
    });
    expect(outcome.diff).toContain("+++ b/tests/test_add.py");
    // reproduction + generate; 1 reproduction run, before, baseline, candidate, regression after.
    expect(outcome.cost).toMatchObject({ llmCalls: 2, testRuns: 5 });
  });

  it("seidr: reproduces, then its first draft fixes", async () => {
    const { outcome, stages } = await run("seidr", LIB, [REPRO, { stage: "generate", content: FIX }]);
    expect(stages).toEqual(["reproduce", "generate"]);
    expect(outcome).toMatchObject({
      strategy: "seidr",
      status: "fixed",
      changedFiles: ["calc/ops.py", "tests/test_add.py"],
    });
  });

  it("slpw: reproduces before sampling plans", async () => {
    const { outcome, stages } = await run("slpw", LIB, [
      REPRO,
      { stage: "plan", content: { steps: ["Return the sum of a and b"] } },
      {
        stage: "verify-plan",
        content: {
          tests: [
            {
              test: "test_add_two_numbers",
              steps: [{ step: 1, value: "5" }],
              derived: "5",
              expected: "5",
              matches: true,
            },
          ],
        },
      },
      { stage: "implement", content: FIX },
    ]);
    expect(stages).toEqual(["reproduce", "plan", "verify-plan", "implement"]);
    expect(outcome).toMatchObject({
      strategy: "slpw",
      status: "fixed",
      changedFiles: ["calc/ops.py", "tests/test_add.py"],
    });
  });

  it("rejects a JavaScript test that calls a function defined nowhere (ReferenceError), says why, and accepts the next", async () => {
    const js = {
      "package.json": JSON.stringify({ name: "calc", private: true, type: "module", scripts: { test: "node --test" } }),
      "src/ops.js": "export function add(a, b) {\n  return a - b;\n}\n",
      "test/ops.test.js":
        'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add } from "../src/ops.js";\n\ntest("adds zero", () => {\n  assert.equal(add(0, 0), 0);\n});\n',
    };
    const header =
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { add } from "../src/ops.js";\n\n';
    const wrong = {
      stage: "reproduce",
      content: {
        path: "test/add.test.js",
        content: `${header}test("adds two numbers", () => {\n  assert.equal(sum(2, 3), 5);\n});\n`,
        expectedFailure: "5",
      },
    };
    const right = {
      stage: "reproduce",
      content: {
        path: "test/add.test.js",
        content: `${header}test("adds two numbers", () => {\n  assert.equal(add(2, 3), 5);\n});\n`,
        expectedFailure: "-1 !== 5",
      },
    };
    const { outcome, llm } = await run("direct", js, [
      wrong,
      right,
      {
        stage: "generate",
        content: {
          edits: [{ kind: "replace", path: "src/ops.js", search: "return a - b;", replace: "return a + b;" }],
        },
      },
    ]);
    expect(llm.sink.entries[1]?.messages[1]?.content).toContain(
      "Attempt 1 was rejected: test/add.test.js > test > adds two numbers it uses sum, which is defined nowhere in the repository (sum is not defined)",
    );
    expect(outcome).toMatchObject({
      status: "fixed",
      evidence: { reproduction: { testIds: ["test/add.test.js > test > adds two numbers"], attempts: 2 } },
    });
  });

  it("a candidate that passes only by weakening the accepted reproduction test is no fix", async () => {
    const weaken = {
      edits: [
        {
          kind: "replace",
          path: "tests/test_add.py",
          search: "assert add(2, 3) == 5",
          replace: "assert add(2, 3) == -1",
        },
      ],
    };
    const { outcome, dir } = await run("direct", LIB, [REPRO, { stage: "generate", content: weaken }]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "policy",
      message: "the change passes the tests only because it changed the reproduction test tests/test_add.py",
    });
    await expect(readFile(join(dir, "tests/test_add.py"), "utf8")).rejects.toThrow(/ENOENT/);
  });

  it("without a fix the reproduction test is removed again", async () => {
    const { outcome, dir } = await run("direct", LIB, [
      REPRO,
      { stage: "generate", content: { edits: [], noChange: "add already returns what the tests expect" } },
    ]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "no-change",
      message: "no code change: add already returns what the tests expect",
    });
    await expect(readFile(join(dir, "tests/test_add.py"), "utf8")).rejects.toThrow(/ENOENT/);
  });
});

describe("no code change", () => {
  it("LPW's implement stage may answer that the code needs no change: the run ends saying why, the code untouched", async () => {
    const files = {
      ...LIB,
      "tests/test_ops.py": `${LIB["tests/test_ops.py"]}\n\ndef test_add_two_numbers():\n    assert add(2, 3) == 5\n`,
    };
    const { outcome, stages, dir } = await run(
      "lpw",
      files,
      [
        { stage: "plan", content: { steps: ["Return a + b"] } },
        {
          stage: "verify-plan",
          content: {
            tests: [
              {
                test: "test_add_two_numbers",
                steps: [{ step: 1, value: "5" }],
                derived: "5",
                expected: "5",
                matches: true,
              },
            ],
          },
        },
        {
          stage: "implement",
          content: { edits: [], noChange: "the test expects 5, but the issue was filed against an older release" },
        },
      ],
      { kind: "tests", ids: ["tests/test_ops.py::test_add_two_numbers"] },
      "add(2, 3) is wrong",
      // The template pass would fix `a - b` itself; here the model's answer is the point.
      false,
    );
    expect(stages).toEqual(["plan", "verify-plan", "implement"]);
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "no-change",
      message: "no code change: the test expects 5, but the issue was filed against an older release",
      attempts: [],
    });
    expect(await readFile(join(dir, "calc/ops.py"), "utf8")).toBe(LIB["calc/ops.py"]);
  });

  it("an answer with neither edits nor a reason is repaired once, then fails the stage", async () => {
    const { outcome, stages } = await run(
      "direct",
      { ...LIB, "tests/test_ops.py": "from calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n" },
      [
        { stage: "generate", content: { edits: [] } },
        { stage: "generate", content: { edits: [] } },
      ],
      { kind: "all" },
    );
    expect(stages).toEqual(["generate", "generate"]);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "error" });
    expect(outcome.message).toContain("give at least one edit, or say in noChange why the code needs no change");
  });
});
