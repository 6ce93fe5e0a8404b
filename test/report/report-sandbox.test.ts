// What the report says about the sandbox: the limit that stopped a run, by name, and a
// warning no reader can miss when the tests ran unsandboxed.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyOutcome, evidenceOf } from "../../src/engine/task.ts";
import { renderReport } from "../../src/report/render-report.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

describe("the report and the sandbox", () => {
  it("names the wall-time limit when a hanging test suite is stopped (a real pytest run), instead of 'ran no test (exit null)'", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-hang-"));
    await writeFile(join(repo, "test_hang.py"), "import time\n\ndef test_hangs():\n    time.sleep(120)\n");
    const report = await localVerifier(detectRunner(repo), { timeoutMs: 2_000 }).run(repo, { kind: "all" });
    expect(report.run.limit).toEqual({
      name: "wall-time",
      message: "timed out after 2 s (the test run's time limit, test.timeoutMinutes)",
    });
    const outcome = emptyOutcome("template");
    outcome.evidence.before = evidenceOf(report);
    outcome.message = "the visible tests did not run";
    const text = renderReport(outcome, { title: "autogen: hang" });
    expect(text).toContain("A sandbox limit was reached in the run before the change: timed out after 2 s");
    expect(text).not.toContain("WARNING");
  });

  it("warns at the top of the report when the tests ran without a sandbox", () => {
    const outcome = emptyOutcome("template");
    outcome.evidence.before = {
      command: ["pytest"],
      isolation: "none",
      passed: 1,
      failed: 0,
      skipped: 0,
      tests: [{ id: "t", status: "pass" }],
    };
    const text = renderReport(outcome, { title: "autogen: x" });
    expect(text.split("\n").slice(0, 4).join("\n")).toContain("The tests in this report ran without a sandbox");
    expect(text).toContain("NO SANDBOX");
  });
});

describe("the report's cost line", () => {
  it("says no model ran instead of an estimated $0.0000", () => {
    const outcome = emptyOutcome("template");
    const text = renderReport(outcome, { title: "autogen: x" });
    expect(text).toContain("Cost: no model calls, test runs 0");
    expect(text).not.toContain("$0.0000");
    outcome.cost.llmCalls = 3;
    outcome.cost.dollars = 0.0123;
    expect(renderReport(outcome, { title: "autogen: x" })).toContain("LLM calls 3, tokens 0 (estimated $0.0123)");
  });
});

describe("the report's localisation table", () => {
  it("gives tied suspiciousness scores the same rank", () => {
    const outcome = emptyOutcome("template");
    const line = (n: number, score: number) => ({ file: "a.py", line: n, score, failedCovering: 1, passedCovering: 0 });
    outcome.plan.localisation = [line(3, 1), line(4, 1), line(5, 1), line(9, 0.5)];
    const text = renderReport(outcome, { title: "autogen: x" });
    expect(text).toContain("| 1 | `a.py:3` |");
    expect(text).toContain("| 1 | `a.py:5` |");
    expect(text).toContain("| 4 | `a.py:9` |");
  });
});
