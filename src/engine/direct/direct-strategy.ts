// The baseline every paper compares against: generate a change from the problem and the
// failing tests, then self-debug from the test output alone (no plan, no verification,
// no trace, no explanation), up to the refinement cap.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { allPassed, failingTests, type TestReport } from "../../verify/test-report.ts";
import { EditError } from "../../workspace/apply-edits.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext } from "../context/build-context.ts";
import { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import { editsSchema } from "../lpw/schemas.ts";
import { emptyOutcome, evidenceOf, type Outcome, type Strategy, type Task } from "../task.ts";

export function directStrategy(options: { llm: LlmClient; maxRefinements?: number }): Strategy {
  return {
    name: "direct",
    async run(task: Task): Promise<Outcome> {
      const outcome = emptyOutcome("direct");
      const started = performance.now();
      const at = { ...options.llm.budget.state };
      const changes = new WorkspaceChanges(task.workspace);
      const test = async (selection = task.visible): Promise<TestReport> => {
        const report = await task.verifier.run(task.workspace, selection);
        outcome.cost.testRuns += 1;
        outcome.cost.testSeconds += report.run.durationMs / 1000;
        return report;
      };
      const finish = (reason: Outcome["stopReason"], message: string): Outcome => {
        const s = options.llm.budget.state;
        Object.assign(outcome, { stopReason: reason, message });
        Object.assign(outcome.cost, { llmCalls: s.llmCalls - at.llmCalls, promptTokens: s.promptTokens - at.promptTokens, completionTokens: s.completionTokens - at.completionTokens, dollars: s.dollars - at.dollars, llmSeconds: (s.waitMs - at.waitMs) / 1000, wallSeconds: (performance.now() - started) / 1000 });
        return outcome;
      };
      try {
        const before = await test();
        outcome.evidence.before = evidenceOf(before);
        if (failingTests(before).length === 0) return finish(before.tests.length ? "nothing-to-fix" : "error", before.tests.length ? "every visible test already passes" : "the visible tests did not run");
        const baseline = task.regression ? await test(task.regression) : undefined;
        const context = await buildContext(task.workspace, { query: `${task.description ?? ""}\n${digestReport(before)}`, mentioned: failingTests(before).flatMap((t) => (t.file ? [t.file] : [])), isTestFile: task.isTestFile });
        const problem = task.description ?? "Make the failing tests pass.";
        let report = before;
        for (let round = 0; round <= (options.maxRefinements ?? 12); round++) {
          if (outcome.cost.candidatesGenerated >= task.budget.candidates) return finish("budget", `${outcome.cost.candidatesGenerated} candidate(s) generated (the budget)`);
          const code = await currentCode(task.workspace, [...new Set([...context.files, ...changes.diff().files])]);
          const stage = round === 0 ? "generate" : "self-debug";
          const { value } = await options.llm.call(stage, { untrusted: { problem, failures: digestReport(report), code }, trusted: round === 0 ? {} : { instruction: "" } }, editsSchema);
          outcome.cost.candidatesGenerated += 1;
          outcome.cost.candidatesTried += 1;
          try {
            await changes.apply(value.edits);
          } catch (error) {
            if (!(error instanceof EditError || error instanceof UnsafePathError)) throw error;
            outcome.attempts.push({ index: round + 1, description: `${stage}: the edits did not apply`, result: "edit-failed", passed: 0, failed: 1 });
            continue;
          }
          report = await test();
          const failed = failingTests(report).length;
          outcome.attempts.push({ index: round + 1, description: stage, result: allPassed(report) ? "plausible" : "still-failing", passed: report.tests.length - failed, failed });
          if (!allPassed(report)) continue;
          outcome.evidence.after = evidenceOf(report);
          if (baseline && task.regression) {
            const regression = await test(task.regression);
            outcome.evidence.regressionAfter = evidenceOf(regression);
            const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
            if (failingTests(regression).some((t) => passedBefore.has(t.id))) continue;
          }
          const { diff, files } = changes.diff();
          Object.assign(outcome, { status: "fixed", diff, changedFiles: files });
          return finish("solved", `the ${stage === "generate" ? "first change" : `change after ${round} self-debugging round(s)`} passes the visible tests and the regression gate`);
        }
        return finish("iterations", `no passing change after ${options.maxRefinements ?? 12} self-debugging rounds`);
      } catch (error) {
        if (error instanceof BudgetExceededError) return finish("budget", error.message);
        if (error instanceof LlmStageError) return finish("error", `the ${error.stage} stage failed`);
        throw error;
      } finally {
        if (outcome.status !== "fixed") await changes.restore();
      }
    },
  };
}

async function currentCode(workspace: string, files: string[]): Promise<string> {
  const parts: string[] = [];
  for (const file of files) parts.push(`--- ${file}\n${await readFile(join(workspace, file), "utf8").catch(() => "")}`);
  return parts.join("\n\n") || "(no code located)";
}
