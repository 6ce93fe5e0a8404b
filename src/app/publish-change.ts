// Getting a change onto GitHub: commit the engine's files from the job's worktree and
// publish the commit to a bot branch through the Git Data API as the App's bot (signed by
// GitHub, so Verified), overwriting the branch only if it is still where it was seen;
// re-apply a checkpointed diff after a restart; publish or delete the Actions verifier's
// throwaway branches.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Job } from "../jobs/job-store.ts";
import type { BotIdentity } from "../forge/bot-identity.ts";
import type { Forge } from "../forge/forge.ts";
import type { Outcome } from "../engine/task.ts";
import { fixCommitMessage } from "../report/commit-message.ts";
import { commitFiles } from "../workspace/commit-files.ts";
import { runGit } from "../workspace/run-git.ts";
import { deleteBranch, listBranches, publishCommit, type GitTarget } from "../forge/publish-commit.ts";
import type { Worktree } from "../workspace/repo-cache.ts";
import { makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";

export function coAuthor(job: Job): string {
  return `Co-authored-by: ${job.requester} <${job.requesterId}+${job.requester}@users.noreply.github.com>`;
}

export function issueCommitMessage(job: Job, outcome: Outcome): string {
  const feedback = job.checkpoint.branch !== undefined;
  const subject =
    outcome.status !== "fixed"
      ? `Closest attempt for #${job.number} (does not pass the tests)`
      : feedback
        ? `Address review on #${job.number}: ${job.hint ?? ""}`
        : `Fix #${job.number}: ${job.snapshot.title}`;
  return fixCommitMessage(outcome, { subject, issueNumber: job.number, trailers: [coAuthor(job)] });
}

/**
 * Commits the engine's files (made in the mirror from the files' bytes: no git command runs
 * in the worktree the tests wrote to) and publishes the commit through GitHub's Git Data API
 * as the bot: no `git push`, no token in any git command. The branch is overwritten only if it
 * is still where it was seen (see publish-commit.ts); returns GitHub's commit id.
 */
/** The job's repository as the bot writes to it. */
export async function gitTarget(
  forge: Forge,
  job: Job,
  identity: (installationId: number) => Promise<BotIdentity>,
): Promise<GitTarget> {
  return { api: forge.git, owner: job.owner, repo: job.repo, identity: await identity(job.installationId) };
}

export async function commitAndPush(
  worktree: Worktree,
  mirror: string,
  target: GitTarget,
  branch: string,
  message: string,
  files: string[],
): Promise<string> {
  const sha = await commitFiles({
    gitDir: mirror,
    parent: worktree.sha,
    workTree: worktree.path,
    files,
    message,
    identity: target.identity,
  });
  return publishCommit(target, { gitDir: mirror, commit: sha, branch });
}

/** Publishes and removes the Actions verifier's `autogen/verify-*` branches through the Git Data API. */
export function branchPublisher(mirror: string, target: GitTarget) {
  const check = (branch: string) => {
    if (!/^autogen\/verify-[\w.-]+$/.test(branch))
      throw new Error(`refusing to publish ${JSON.stringify(branch)}: not a verification branch`);
  };
  return {
    async push(sha: string, branch: string) {
      check(branch);
      if (!/^[0-9a-f]{40,64}$/.test(sha))
        throw new Error(`refusing to publish ${JSON.stringify(sha)}: not a commit id`);
      // A throwaway branch of this job: overwritten whatever it holds, as before.
      await publishCommit(target, { gitDir: mirror, commit: sha, branch, force: true });
    },
    async remove(branch: string) {
      check(branch);
      await deleteBranch(target, branch);
    },
    /** Deletes what a crashed run of the same job left behind (`prefix` is `autogen/verify-job-<id>-`). */
    async sweep(prefix: string): Promise<string[]> {
      check(`${prefix}0`);
      const stale = await listBranches(target, prefix);
      for (const branch of stale) await this.remove(branch);
      return stale;
    },
  };
}

export async function applyStoredDiff(dir: string, diff: string): Promise<void> {
  const patchDir = await makeTempDir("autogen-patch-");
  try {
    const path = join(patchDir, "change.diff");
    await writeFile(path, diff);
    // Files the engine rewrote with their original text have new timestamps: refresh first.
    await runGit(["update-index", "-q", "--refresh"], { cwd: dir }).catch(() => undefined);
    await runGit(["apply", "--index", path], { cwd: dir });
  } finally {
    await removeTempDir(patchDir);
  }
}
