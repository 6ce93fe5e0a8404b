// The LLM strategies' run harness gives candidates the same limits as the template
// strategy: a model's edit that loops forever is stopped within seconds (no per-test
// timeout in the environment, the test run's own limit at 10 minutes), recorded as
// timed out, and the search goes on. Real pytest in the sandbox; the model is scripted.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { directStrategy } from "../../src/engine/direct/direct-strategy.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner, pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { writeRepo } from "../support/python-task.ts";

useHttpMock();

const edit = (search: string, replace: string) => ({ edits: [{ kind: "replace", path: "lib.py", search, replace }] });
const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };

describe("direct strategy (SearchRun): a candidate that loops forever", () => {
  it("is stopped by the per-test limit, recorded as timed out, and the next candidate fixes the code", async () => {
    scriptAnswers([
      { stage: "generate", content: edit("    return total - 1\n", "    while True:\n        pass\n") },
      { stage: "self-debug", content: edit("    while True:\n        pass\n", "    return total\n") },
    ]);
    const source =
      "def total_of(values):\n    total = 0\n    for v in values:\n        total += v\n    return total - 1\n";
    const dir = await writeRepo({
      "lib.py": source,
      "test_lib.py": "from lib import total_of\n\ndef test_total():\n    assert total_of([1, 2, 3]) == 6\n",
    });
    const sandbox = { timeoutMs: 10 * 60_000, env: ENV };
    const outcome = await directStrategy({ llm: testLlm() }).run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
      candidateLimit: { factor: 5, floorSeconds: 1 },
    });
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.attempts.map((a) => [a.description, a.result])).toEqual([
      ["generate", "timed-out"],
      ["self-debug", "plausible"],
    ]);
    // Its CPU limit (1 s), or on a machine so busy the loop gets less CPU than that in time, the wall-clock one (seen at load 18).
    expect(outcome.attempts[0]?.limit).toMatch(
      /^timed out after (\d+(\.\d+)? s in test_lib\.py::test_total|\d+(\.\d+)? s) \(the candidate limit: 1 test\(s\) × 1(\.\d+)? s /,
    );
  });
});

describe("direct strategy (SearchRun): a candidate whose regression run is stopped by its limit", () => {
  it("is not accepted on the tests the stopped run reported before it was stopped", async () => {
    const source = [
      "export function double(x) {",
      "  return x + 2;",
      "}",
      "",
      "export function countdown(n) {",
      "  let steps = 0;",
      "  while (n > 0) {",
      "    n -= 1;",
      "    steps += 1;",
      "  }",
      "  return steps;",
      "}",
      "",
    ].join("\n");
    const tests = [
      'import { test } from "node:test";',
      'import assert from "node:assert/strict";',
      'import { countdown, double } from "../src/lib.js";',
      "",
      'test("double", () => assert.equal(double(3), 6));',
      'test("countdown", () => assert.equal(countdown(3), 3));',
      "",
    ].join("\n");
    const looping = {
      edits: [
        { kind: "replace", path: "src/lib.js", search: "  return x + 2;\n", replace: "  return x * 2;\n" },
        { kind: "replace", path: "src/lib.js", search: "    n -= 1;\n", replace: "    n -= 0;\n" },
      ],
    };
    // Direct applies each round's edits after the earlier rounds' ones.
    const sound = {
      edits: [{ kind: "replace", path: "src/lib.js", search: "    n -= 0;\n", replace: "    n -= 1;\n" }],
    };
    scriptAnswers([
      { stage: "generate", content: looping },
      { stage: "self-debug", content: sound },
    ]);
    const dir = await writeRepo({
      "package.json": JSON.stringify({ name: "lib", private: true, type: "module", scripts: { test: "node --test" } }),
      "src/lib.js": source,
      "test/lib.test.js": tests,
    });
    const sandbox = { timeoutMs: 10 * 60_000 };
    const verifier = localVerifier(detectRunner(dir), sandbox);
    const failing = (await verifier.run(dir, { kind: "all" })).tests
      .filter((t) => t.status === "fail")
      .map((t) => t.id);
    expect(failing).toHaveLength(1);
    const outcome = await directStrategy({ llm: testLlm() }).run({
      workspace: dir,
      visible: { kind: "tests", ids: failing },
      regression: { kind: "all" },
      verifier,
      sandbox,
      runnerName: "node-test",
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
    });
    // The looping candidate passed the visible test; its regression run hung in `countdown` and was stopped: that attempt timed out.
    expect(outcome.attempts.map((a) => a.result)).toEqual(["timed-out", "plausible"]);
    expect(outcome.attempts[0]?.limit).toMatch(/^timed out after /);
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(await readFile(join(dir, "src/lib.js"), "utf8")).toContain("    n -= 1;\n");
    expect(outcome.evidence.regressionAfter).toMatchObject({ passed: 2, failed: 0 });
  });
});
