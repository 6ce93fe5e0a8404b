// A template candidate that loops forever is stopped by a limit from the unchanged code's
// own run (max(10 s, 5 × baseline)), recorded as timed out, and the search goes on to the
// real fix: real pytest in the sandbox, no per-test timeout to help it.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { candidateTimeLimit } from "../../src/engine/candidate-time-limit.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";
import { writeRepo } from "../support/python-task.ts";

// `i += 1` is as suspicious as the buggy comparison (the same tests run both lines), and
// its mutations `i += 0`, `i *= 1`, `i = 1`, `pass` never let the loop end.
const SOURCE = [
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
const TESTS = [
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

// No AUTOGEN_TEST_TIMEOUT: `autogen fix` sets none, so only the run's wall limit can stop a loop.
const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };

describe("template strategy: a candidate that loops forever", () => {
  it("is stopped by the candidate limit, recorded as timed out, and the right fix is still found", async () => {
    const dir = await writeRepo({ "lib.py": SOURCE, "test_lib.py": TESTS });
    // The test run's own limit, as test.timeoutMinutes's default gives it.
    const sandbox = { timeoutMs: 10 * 60_000, env: ENV };
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "test"), sandbox),
      sandbox: { ...sandbox, env: withPytestPlugin(ENV) },
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 300, minutes: 30 },
      parallelism: 1,
    });
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.plan.fix).toMatchObject({ family: "comparison-swap", description: "`<` → `>`", line: 5 });
    expect(await readFile(join(dir, "lib.py"), "utf8")).toContain("        if values[i] > limit:\n");
    // `i += 0` came before the fix in the ranking: it was tried, stopped, and counted as its own failure.
    const timedOut = outcome.attempts.filter((a) => a.result === "timed-out");
    expect(timedOut).toEqual([
      expect.objectContaining({
        family: "off-by-one",
        description: "1 → 0",
        line: 7,
        limit: expect.stringMatching(/^timed out after 10 s \(the candidate limit: 5 × the unchanged code's \d+(\.\d)? s on the same tests, at least 10 s\)$/),
      }),
    ]);
    const plausible = outcome.attempts.findIndex((a) => a.result === "plausible");
    expect(outcome.attempts.indexOf(timedOut[0] as (typeof outcome.attempts)[number])).toBeLessThan(plausible);
    expect(outcome.attempts.filter((a) => a.result === "still-failing").length).toBe(outcome.attempts.length - 2);
  });
});

describe("candidateTimeLimit", () => {
  it("is 5 × the baseline run, at least 10 s, never above the test run's own limit", () => {
    expect(candidateTimeLimit(800, 600_000).timeoutMs).toBe(10_000);
    expect(candidateTimeLimit(4_000, 600_000).timeoutMs).toBe(20_000);
    expect(candidateTimeLimit(200_000, 600_000).timeoutMs).toBe(600_000);
    expect(candidateTimeLimit(800, 5_000).timeoutMs).toBe(5_000);
    expect(candidateTimeLimit(1_250, 600_000).reason).toBe("the candidate limit: 5 × the unchanged code's 1.3 s on the same tests, at least 10 s");
  });
});
