// The diff policy on a fixed Outcome: the verdict is attached, and a change that breaks
// the policy is no fix, whatever the tests say.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { evaluateDiffPolicy } from "../workspace/diff-policy.ts";
import { isTestFile } from "./is-test-file.ts";
import type { Outcome } from "./task.ts";

export function checkDiffPolicy(outcome: Outcome, config: Pick<RepoConfig, "paths" | "diff">): void {
  if (outcome.status !== "fixed") return;
  // A reproduction test the engine wrote is judged like any test change: as an added file
  // it adds evidence and takes none away (withReproduction has already refused a fix that
  // changed it after it was accepted), so it needs no exemption from the guard.
  outcome.policy = evaluateDiffPolicy(outcome.diff, { ...config.paths, ...config.diff }, { isTestFile });
  if (outcome.policy.ok) return;
  const reasons = [...outcome.policy.violations.map((v) => v.detail), ...outcome.policy.tampering.map((t) => `${t.kind} in ${t.file}`)];
  Object.assign(outcome, { status: "not-fixed", stopReason: "policy", message: `the change passes the tests but breaks the diff policy: ${reasons.join("; ")}` });
}
