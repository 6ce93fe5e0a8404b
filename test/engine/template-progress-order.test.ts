// Progress lists attempts in candidate order (attempt 1 before attempt 2) even when the
// parallel validation slots finish in the opposite order. The slot that holds a batch's
// first candidate (slot 0, the workspace) is made to finish last: its result is held back
// until a run in another slot has finished.
import { describe, expect, it } from "vitest";
import { progressPrinter } from "../../src/cli/progress.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier, type Verifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { withPytestPlugin } from "../../src/verify/runners/pytest-plugin.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

const SOURCE = "def average(values):\n    total = sum(values)\n    count = len(values)\n    return total / total\n";
const TESTS =
  "from lib import average\n\ndef test_average():\n    assert average([2, 4, 6]) == 4\n\ndef test_single():\n    assert average([5]) == 1 * 5\n";

/** The real verifier, except that a run in `first` returns only after a run elsewhere has finished. */
function firstSlotLast(real: Verifier, first: string): Verifier {
  let othersRunning = 0;
  const finished: Array<() => void> = [];
  return {
    ...real,
    async run(workspace, selection, extraEnv, limit) {
      if (workspace !== first) {
        othersRunning += 1;
        try {
          return await real.run(workspace, selection, extraEnv, limit);
        } finally {
          othersRunning -= 1;
          for (const release of finished.splice(0)) release();
        }
      }
      const report = await real.run(workspace, selection, extraEnv, limit);
      // Held only while another slot is still running (never for the baseline, which runs alone).
      if (othersRunning > 0) await new Promise<void>((resolve) => finished.push(resolve));
      return report;
    },
  };
}

describe("progress with parallel validation", () => {
  it("prints attempt 1 before attempt 2 although slot 0 finishes after slot 1", async () => {
    const dir = await writeRepo({ "lib.py": SOURCE, "test_lib.py": TESTS });
    const lines: string[] = [];
    const printer = progressPrinter((text) => lines.push(text), false);
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: firstSlotLast(localVerifier(pytestRunner([], "test"), sandbox), dir),
      sandbox: { ...sandbox, env: withPytestPlugin(PYTEST_ENV) },
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 300, minutes: 5 },
      parallelism: 3,
      onProgress: printer.onProgress,
    });
    expect(outcome.status).toBe("fixed");
    const printed = lines.flatMap((line) => /attempt (\d+)\//.exec(line)?.[1] ?? []).map(Number);
    expect(printed.length).toBeGreaterThanOrEqual(2);
    expect(printed).toEqual(printed.map((_, i) => i + 1));
  }, 180_000);
});
