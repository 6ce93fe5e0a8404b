// The diff policy on a fixed Outcome: the verdict is attached, and a change that breaks
// the policy is no fix, whatever the tests say.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { evaluateDiffPolicy } from "../workspace/diff-policy.ts";
import { fileSides } from "../workspace/file-sides.ts";
import type { DiffFile } from "../workspace/parse-diff.ts";
import { isTestFile } from "./is-test-file.ts";
import type { Outcome } from "./task.ts";

/** `workspace`: the worktree holding the change, so pyproject.toml, setup.cfg and package.json are judged by their test sections (without it, by any change). */
export function checkDiffPolicy(
  outcome: Outcome,
  config: Pick<RepoConfig, "paths" | "diff">,
  workspace?: string,
): void {
  if (outcome.status !== "fixed") return;
  // A reproduction test the engine wrote is judged like any test change: as an added file
  // it adds evidence and takes none away (withReproduction has already refused a fix that
  // changed it after it was accepted), so it needs no exemption from the guard.
  const sides = workspace === undefined ? undefined : (file: DiffFile) => fileSides(workspace, file);
  outcome.policy = evaluateDiffPolicy(outcome.diff, { ...config.paths, ...config.diff }, { isTestFile, sides });
  if (outcome.policy.ok) return;
  const reasons = [
    ...outcome.policy.violations.map((v) => v.detail),
    ...outcome.policy.tampering.map((t) => `${t.kind} in ${t.file}`),
  ];
  Object.assign(outcome, {
    status: "not-fixed",
    stopReason: "policy",
    message: `the change passes the tests but breaks the diff policy: ${reasons.join("; ")}`,
  });
}
