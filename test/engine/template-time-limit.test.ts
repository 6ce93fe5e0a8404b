// A template candidate that loops forever is stopped by a limit from the unchanged code's
// own timings (test.candidateLimit), recorded as timed out, and the search goes on to the
// real fix: real pytest and node --test runs in the sandbox, with no per-test timeout in
// the environment (`autogen fix` sets none) and the test run's own limit at 10 minutes.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { CandidateLimitSettings } from "../../src/engine/candidate-limits.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";
import { writeRepo } from "../support/python-task.ts";

// `i += 1` is as suspicious as the buggy comparison (the same tests run both lines), and
// its mutation `1 → 0` never lets the loop end; it ranks before the fix.
const PY_SOURCE = [
  "def count_above(values, limit):",
  "    n = 0",
  "    i = 0",
  "    while i < len(values):",
  "        if values[i] < limit:",
  "            n += 1",
  "        i += 1",
  "    return n",
  "",
].join("\n");
const PY_TESTS = [
  "from lib import count_above",
  "",
  "def test_mixed():",
  "    assert count_above([1, 5, 2, 8], 4) == 2",
  "",
  "def test_all_above():",
  "    assert count_above([7, 9, 6], 3) == 3",
  "",
  "def test_at_limit_is_not_above():",
  "    assert count_above([4, 5], 4) == 1",
  "",
  "def test_empty():",
  "    assert count_above([], 3) == 0",
  "",
].join("\n");

const JS_SOURCE = [
  "export function countAbove(values, limit) {",
  "  let n = 0;",
  "  let i = 0;",
  "  while (i < values.length) {",
  "    if (values[i] < limit) n += 1;",
  "    i += 1;",
  "  }",
  "  return n;",
  "}",
  "",
].join("\n");
const JS_TESTS = [
  'import { test } from "node:test";',
  'import assert from "node:assert/strict";',
  'import { countAbove } from "../src/count.js";',
  "",
  'test("mixed", () => assert.equal(countAbove([1, 5, 2, 8], 4), 2));',
  'test("all above", () => assert.equal(countAbove([7, 9, 6], 3), 3));',
  'test("at the limit is not above", () => assert.equal(countAbove([4, 5], 4), 1));',
  'test("empty", () => assert.equal(countAbove([], 3), 0));',
  "",
].join("\n");

const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };
const TEN_MINUTES = 10 * 60_000;

async function runOn(dir: string, runnerName: string, candidateLimit?: CandidateLimitSettings): Promise<Outcome> {
  const sandbox = { timeoutMs: TEN_MINUTES, env: ENV };
  return templateStrategy.run({
    workspace: dir,
    visible: { kind: "all" },
    verifier: localVerifier(detectRunner(dir), sandbox),
    sandbox: { ...sandbox, env: runnerName === "pytest" ? withPytestPlugin(ENV) : ENV },
    runnerName,
    isTestFile,
    budget: { candidates: 300, minutes: 30 },
    parallelism: 1,
    candidateLimit,
  });
}

function timedOutAttempts(outcome: Outcome) {
  return outcome.attempts.filter((a) => a.result === "timed-out");
}

describe("template strategy: a candidate that loops forever", () => {
  it("Python: one looping test is stopped by the per-test limit; the candidate is timed out and the fix is still found", async () => {
    const dir = await writeRepo({ "lib.py": PY_SOURCE, "test_lib.py": PY_TESTS });
    const outcome = await runOn(dir, "pytest");
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.plan.fix).toMatchObject({ family: "comparison-swap", description: "`<` → `>`", line: 5 });
    expect(await readFile(join(dir, "lib.py"), "utf8")).toContain("        if values[i] > limit:\n");
    const timedOut = timedOutAttempts(outcome);
    expect(timedOut).toEqual([expect.objectContaining({ family: "off-by-one", description: "1 → 0", line: 7 })]);
    // Default settings: 5 × the slowest test (milliseconds) + 1 s per test; the run's limit is a few seconds on top.
    // The test is stopped at its CPU limit, or, on a machine so busy that the loop gets less CPU than that
    // before the wall-clock limit ("a test that blocks is stopped after …"), at that one (seen at load 18).
    expect(timedOut[0]?.limit).toMatch(
      /^timed out after (\d+(\.\d+)? s in test_lib\.py::test_\w+|\d+(\.\d+)? s) \(the candidate limit: 2 test\(s\) × 1(\.\d+)? s \(5 × the slowest test's 0(\.\d+)? s \+ 1 s\) \+ 2 × the \d+(\.\d+)? s the unchanged code's run spent starting and collecting; a test that blocks is stopped after \d+(\.\d+)? s\)$/,
    );
    const plausible = outcome.attempts.findIndex((a) => a.result === "plausible");
    expect(outcome.attempts.indexOf(timedOut[0] as (typeof outcome.attempts)[number])).toBeLessThan(plausible);
    expect(outcome.attempts.filter((a) => a.result === "still-failing").length).toBe(outcome.attempts.length - 2);
  });

  it("Python: the per-test limit follows test.candidateLimit", async () => {
    const dir = await writeRepo({ "lib.py": PY_SOURCE, "test_lib.py": PY_TESTS });
    const outcome = await runOn(dir, "pytest", { factor: 2, floorSeconds: 0.5 });
    expect(outcome).toMatchObject({ status: "fixed" });
    const timedOut = timedOutAttempts(outcome);
    expect(timedOut).toHaveLength(1);
    expect(timedOut[0]?.limit).toMatch(
      /^timed out after (\d+(\.\d+)? s in test_lib\.py::test_\w+|\d+(\.\d+)? s) \(the candidate limit: 2 test\(s\) × \d+(\.\d+)? s \(2 × the slowest test's \d+(\.\d+)? s \+ 0\.5 s\) \+ 2 × /,
    );
  });

  it("JavaScript (node --test): a synchronous loop is stopped at the candidate's per-test limit (our watchdog) and named; the fix is still found", async () => {
    const dir = await writeRepo({
      "package.json": JSON.stringify({
        name: "count",
        private: true,
        type: "module",
        scripts: { test: "node --test" },
      }),
      "src/count.js": JS_SOURCE,
      "test/count.test.js": JS_TESTS,
    });
    const outcome = await runOn(dir, "node-test");
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(await readFile(join(dir, "src/count.js"), "utf8")).toContain("    if (values[i] > limit) n += 1;\n");
    const timedOut = timedOutAttempts(outcome);
    expect(timedOut.length).toBeGreaterThanOrEqual(1);
    expect(timedOut.find((a) => a.description === "1 → 0" && a.line === 6)).toBeDefined();
    // A blocked event loop cannot honour --test-timeout: our watchdog stopped it at the per-test limit, named.
    expect(timedOut[0]?.limit).toMatch(
      /^timed out after 1(\.\d+)? s in test\/count\.test\.js > test > .+ \(the candidate limit: 2 test\(s\) × 1(\.\d+)? s \(5 × the slowest test's 0(\.\d+)? s \+ 1 s\) \+ 2 × the \d+(\.\d+)? s /,
    );
    expect(outcome.attempts.filter((a) => a.result === "timed-out" || a.result === "still-failing").length).toBe(
      outcome.attempts.length - 1,
    );
  });

  it("does not cut a test that is slow but sound in the unchanged code's run", async () => {
    // The slow test takes 1.5 s every run: the floor alone (1 s) would cut it.
    const source =
      "import time\n\ndef settle():\n    time.sleep(1.5)\n    return True\n\ndef double(x):\n    return x + 2\n";
    const tests =
      "from lib import settle, double\n\ndef test_settle():\n    assert settle()\n\ndef test_double():\n    assert double(3) == 6\n";
    const dir = await writeRepo({ "lib.py": source, "test_lib.py": tests });
    const outcome = await runOn(dir, "pytest");
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(timedOutAttempts(outcome)).toEqual([]);
    expect(outcome.evidence.after).toMatchObject({ passed: 2, failed: 0 });
  });
});
