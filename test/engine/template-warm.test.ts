// The template strategy with warm runners in its slots: the same fix as with cold runs,
// with candidates' failing tests really run warm (real pytest, real sandbox).
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";
import type { WarmSlot } from "../../src/verify/warm/warm-pytest-slot.ts";
import { PYTEST_ENV, runTemplate, writeRepo } from "../support/python-task.ts";

const FILES = {
  "lib.py":
    "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n\ndef scale(x, k):\n    return x * k\n",
  "test_lib.py":
    "from lib import sum_to, scale\n\ndef test_three():\n    assert sum_to(3) == 6\n\ndef test_ten():\n    assert sum_to(10) == 55\n\ndef test_scale():\n    assert scale(2, 3) == 6\n",
};

describe("template strategy with warm slots", () => {
  it("finds the cold run's fix, validating candidates on warm runners", async () => {
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const verifier = localVerifier(pytestRunner([], "test"), { ...sandbox, warm: true });
    const opened: WarmSlot[] = [];
    const open = verifier.openWarm?.bind(verifier);
    if (!open) throw new Error("a pytest verifier with warm: true offers warm runners");
    verifier.openWarm = (workspace) => {
      const slot = open(workspace);
      opened.push(slot);
      return slot;
    };
    const dir = await writeRepo(FILES);
    const warm = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "all" },
      verifier,
      sandbox: { ...sandbox, env: withPytestPlugin(PYTEST_ENV) },
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 300, minutes: 5 },
      parallelism: 2,
    });
    const cold = await runTemplate(await writeRepo(FILES), 300, 2);
    expect(warm.status).toBe("fixed");
    expect(warm.diff).toBe(cold.diff);
    expect(warm.attempts.map((a) => `${a.index}:${a.result}`)).toEqual(
      cold.attempts.map((a) => `${a.index}:${a.result}`),
    );
    expect(opened).toHaveLength(2);
    const warmRuns = opened.reduce((sum, slot) => sum + slot.stats.warm, 0);
    expect(warmRuns).toBe(warm.attempts.length);
  }, 300_000);
});
