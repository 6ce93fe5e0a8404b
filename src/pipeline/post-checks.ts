// The checks every door runs on the engine's outcome before anything is published, in one
// place: the diff is really in the worktree (read through the safe-path gate), and the diff
// policy holds, and (with a model) the fix's outputs on inputs written from the issue
// agree with it (engine/behaviour: the behaviour table). Each turns a "fixed" outcome that fails it into "not-fixed" with the reason;
// an outcome that is not fixed passes through unchanged. The regression gate itself runs
// inside the engine (Task.regression); its verdict is on the outcome when this is called.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { checkDiffLanded } from "../engine/check-diff-landed.ts";
import { checkDiffPolicy } from "../engine/check-diff-policy.ts";
import { checkBehaviour, type BehaviourInput } from "../engine/behaviour/check-behaviour.ts";
import type { Outcome } from "../engine/task.ts";

export async function postChecks(
  workspace: string,
  outcome: Outcome,
  config: Pick<RepoConfig, "paths" | "diff">,
  behaviour?: Omit<BehaviourInput, "workspace">,
): Promise<Outcome> {
  if (outcome.status !== "fixed") return outcome;
  await checkDiffLanded(workspace, outcome);
  checkDiffPolicy(outcome, config, workspace);
  if (behaviour) await checkBehaviour(outcome, { ...behaviour, workspace });
  return outcome;
}
