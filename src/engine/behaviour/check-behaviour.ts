// The behaviour check on a fixed outcome (with a model): the model writes calls from the
// issue (with the reproduction test, before any fix, when the issue was reproduced; else
// in a call of its own, shown the fix), the harness runs them in the sandbox on the code before and after the fix, and
// the table goes on the outcome. A call whose output after the fix is not what the issue
// expects makes the outcome "not fixed" (the diff is kept as the closest attempt); an
// output the fix changed where the issue expects nothing is flagged (the fix ships as a
// draft, see review-fix.ts). Python (pytest, unittest) and JavaScript/TypeScript (node
// --test, jest, vitest, mocha, ava, tape) each have a harness; without a model, or for a
// runner neither covers, the outcome says why there is no table.
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import type { SandboxOptions } from "../../verify/sandbox/run-sandboxed.ts";
import { RunCosts } from "../run/run-costs.ts";
import type { Outcome } from "../task.ts";
import { askBehaviourCalls } from "./behaviour-calls.ts";
import { behaviourLanguage } from "./behaviour-language.ts";
import { buildRows, flagged, type BehaviourTable } from "./behaviour-table.ts";
import { scratchCopy, type ScratchCopy } from "./scratch-copy.ts";
import { runBehaviourHarness } from "./run-behaviour-harness.ts";

export type BehaviourInput = {
  workspace: string;
  llm: LlmClient | undefined;
  problem: string | undefined;
  runnerName: string;
  sandbox: Omit<SandboxOptions, "cwd">;
};

export async function checkBehaviour(outcome: Outcome, input: BehaviourInput): Promise<void> {
  if (outcome.status !== "fixed") return;
  const spend = new RunCosts(input.llm?.budget.state);
  try {
    outcome.behaviour = await behaviourTable(outcome, input);
  } finally {
    // The model's call for the inputs is part of the run's cost.
    spend.addModelSpend(outcome.cost);
  }
  const contradicts = flagged(outcome.behaviour, "contradicts");
  if (contradicts.length === 0) return;
  const shown = contradicts
    .slice(0, 2)
    .map((r) => `\`${r.call}\` gives ${r.after}, the issue expects ${r.expected}`)
    .join("; ");
  Object.assign(outcome, {
    status: "not-fixed",
    stopReason: "contradicts-issue",
    message: `the change passes the tests but not the issue on ${String(contradicts.length)} generated input(s): ${shown}`,
    closestAttempt: {
      diff: outcome.diff,
      files: outcome.changedFiles,
      passed: outcome.evidence.after?.passed ?? 0,
      failed: outcome.evidence.after?.failed ?? 0,
    },
  });
}

async function behaviourTable(outcome: Outcome, input: BehaviourInput): Promise<BehaviourTable> {
  if (!input.llm) return { kind: "none", reason: "no model is configured to write inputs from the issue" };
  const language = behaviourLanguage(input.runnerName);
  if (!language)
    return {
      kind: "none",
      reason: `the behaviour harness runs Python and JavaScript code; these tests run with ${input.runnerName}`,
    };
  const given = outcome.issueCalls;
  // Why the reproduce answer's calls were not used, said in the report beside the ones asked for now.
  const setAside = given?.kind === "unusable" ? given.reason : undefined;
  let request;
  try {
    request =
      given?.kind === "calls"
        ? given.request
        : await askBehaviourCalls(input.llm, { problem: input.problem, diff: outcome.diff }, language);
  } catch (error) {
    if (error instanceof BudgetExceededError)
      return { kind: "none", reason: "the model's budget ran out before it wrote inputs" };
    if (error instanceof LlmStageError)
      return { kind: "none", reason: "the model gave no usable inputs to check the fix on" };
    throw error;
  }
  if ("reason" in request) return { kind: "none", reason: request.reason };
  const copies: ScratchCopy[] = [];
  try {
    try {
      copies.push(await scratchCopy(input.workspace, outcome.diff));
      copies.push(await scratchCopy(input.workspace));
    } catch (error) {
      return { kind: "none", reason: (error as Error).message };
    }
    const [before, after] = copies as [ScratchCopy, ScratchCopy];
    const old = await runBehaviourHarness(before.dir, request, input.sandbox, language);
    const now = await runBehaviourHarness(after.dir, request, input.sandbox, language);
    if (!now.ok) return { kind: "none", reason: `on the fixed code, ${now.reason}` };
    const oldOutputs = old.ok
      ? old.outputs
      : request.calls.map(() => ({ kind: "missing" as const, message: old.reason }));
    return {
      kind: "table",
      module: request.module,
      rows: buildRows(request.calls, oldOutputs, now.outputs, now.expected),
      written: given?.kind === "calls" ? "before-fix" : "after-fix",
      ...(setAside ? { setAside } : {}),
    };
  } finally {
    for (const copy of copies) await copy.remove();
  }
}
