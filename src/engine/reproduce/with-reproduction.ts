// A task still to be reproduced (`visible: { kind: "reproduce" }`) first gets its
// reproduction test (the shared stage); the strategy then works on the failing tests the
// runner reported for it. The test ships with a fix as a new file, exactly as it was
// accepted; without a fix it is removed again.
import { rm } from "node:fs/promises";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { tryReadWorktreeText } from "../../workspace/read-worktree-file.ts";
import { safeRepoPath } from "../../workspace/safe-path.ts";
import { fileDiff } from "../../workspace/unified-diff.ts";
import { emptyOutcome, type Outcome, type Strategy } from "../task.ts";
import { reproduceIssue, type ReproductionResult } from "./reproduce-issue.ts";

export function withReproduction(next: Strategy, llm: LlmClient, options: { attempts?: number } = {}): Strategy {
  return {
    name: next.name,
    async run(task) {
      if (task.visible.kind !== "reproduce") return next.run(task);
      const started = performance.now();
      const at = { ...llm.budget.state };
      const tests = { testRuns: 0, testSeconds: 0 };
      const spent = (): Outcome["cost"] => {
        const s = llm.budget.state;
        return {
          ...emptyOutcome(next.name).cost,
          llmCalls: s.llmCalls - at.llmCalls,
          cachedCalls: s.cachedCalls - at.cachedCalls,
          promptTokens: s.promptTokens - at.promptTokens,
          completionTokens: s.completionTokens - at.completionTokens,
          dollars: s.dollars - at.dollars,
          llmSeconds: (s.waitMs - at.waitMs) / 1000,
          testRuns: tests.testRuns,
          testSeconds: tests.testSeconds,
          wallSeconds: (performance.now() - started) / 1000,
        };
      };
      const stopped = (stopReason: Outcome["stopReason"], message: string): Outcome => ({
        ...emptyOutcome(next.name),
        stopReason,
        message,
        cost: spent(),
      });
      let result: ReproductionResult;
      try {
        result = await reproduceIssue(task, llm, tests, options);
      } catch (error) {
        if (error instanceof BudgetExceededError)
          return stopped("budget", `while reproducing the issue: ${error.message}`);
        if (error instanceof LlmStageError)
          return stopped("error", `the ${error.stage} stage failed: ${error.message.slice(error.stage.length + 2)}`);
        throw error;
      }
      if (!result.ok) return stopped("not-reproduced", `could not reproduce: ${result.reason}`);

      const cost = spent();
      const reproduction = {
        path: result.path,
        testId: result.testIds[0] ?? result.path,
        testIds: result.testIds,
        failure: result.failure,
        attempts: result.attempts,
      };
      let outcome: Outcome | undefined;
      try {
        // The workspace now holds the reproduction test: the suite's earlier run is not this one.
        outcome = await next.run({ ...task, visible: { kind: "tests", ids: result.testIds }, suiteBefore: undefined });
        outcome.evidence.reproduction = reproduction;
        // Written from the issue before the fix: the behaviour check runs these instead of asking again.
        if (result.issueCalls) outcome.issueCalls = result.issueCalls;
        outcome.cost = addCosts(cost, outcome.cost);
        if (outcome.status === "fixed") await shipTest(outcome, task.workspace, result.path, result.content);
        return outcome;
      } finally {
        if (outcome?.status !== "fixed") await rm(safeRepoPath(task.workspace, result.path), { force: true });
      }
    },
  };
}

/** The accepted reproduction test joins the fix as an added file; a strategy that changed it has weakened the evidence. */
async function shipTest(outcome: Outcome, workspace: string, path: string, accepted: string): Promise<void> {
  const now = await tryReadWorktreeText(workspace, path);
  if (now !== accepted) {
    Object.assign(outcome, {
      status: "not-fixed",
      stopReason: "policy",
      message: `the change passes the tests only because it ${now === undefined ? "deleted" : "changed"} the reproduction test ${path}`,
    });
    return;
  }
  if (outcome.changedFiles.includes(path)) return;
  outcome.diff = `${outcome.diff}${fileDiff(path, null, accepted)}`;
  outcome.changedFiles = [...outcome.changedFiles, path].sort();
}

export function addCosts(a: Outcome["cost"], b: Outcome["cost"]): Outcome["cost"] {
  const out = { ...a };
  for (const key of Object.keys(out) as Array<keyof Outcome["cost"]>) out[key] = a[key] + b[key];
  return out;
}
