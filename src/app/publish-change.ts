// Getting a change onto GitHub: commit the engine's files in the job's worktree and push
// them to a bot branch with the installation token (for that one command), overwriting
// the branch only if it is still where it was seen; re-apply a checkpointed diff after a
// restart; push or delete the Actions verifier's throwaway branches.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Job } from "../jobs/job-store.ts";
import type { Outcome } from "../engine/task.ts";
import { commitFiles } from "../workspace/commit-files.ts";
import { git, type GitCredentials } from "../workspace/git.ts";
import type { Worktree } from "../workspace/repo-cache.ts";

export function coAuthor(job: Job): string {
  return `Co-authored-by: ${job.requester} <${job.requesterId}+${job.requester}@users.noreply.github.com>`;
}

export function issueCommitMessage(job: Job, outcome: Outcome): string {
  const feedback = job.checkpoint.branch !== undefined;
  const subject =
    outcome.status !== "fixed" ? `Closest attempt for #${job.number} (does not pass the tests)` : feedback ? `Address review on #${job.number}: ${job.hint ?? ""}` : `Fix #${job.number}: ${job.snapshot.title}`;
  return [subject.split("\n")[0]?.slice(0, 72) ?? "", "", `${outcome.message}.`, "", coAuthor(job)].join("\n");
}

export async function commitAndPush(worktree: Worktree, mirror: string, url: string, branch: string, message: string, files: string[], credentials: GitCredentials): Promise<string> {
  // Made in the mirror from the files' bytes: no git command runs in the worktree the tests wrote to.
  const sha = await commitFiles({ gitDir: mirror, parent: worktree.sha, workTree: worktree.path, files, message });
  // The token exists only in the environment of these two commands, run in the mirror no test could write.
  const remote = git(mirror, { credentials, gitDir: mirror });
  // The mirror's own remote refuses refspecs (it is a mirror): name the repository instead.
  const existing = (await remote.raw(["ls-remote", "--end-of-options", url, `refs/heads/${branch}`])).trim().split(/\s+/)[0] ?? "";
  // Only overwrite the branch if it is still where we last saw it.
  await remote.raw(["push", `--force-with-lease=refs/heads/${branch}:${existing}`, "--end-of-options", url, `${sha}:refs/heads/${branch}`]);
  return sha;
}

/** Pushes and removes the Actions verifier's `autogen/verify-*` branches. */
export function branchPublisher(mirror: string, url: string, credentials: GitCredentials) {
  const remote = () => git(mirror, { credentials, gitDir: mirror });
  const check = (branch: string) => {
    if (!/^autogen\/verify-[\w.-]+$/.test(branch)) throw new Error(`refusing to publish ${JSON.stringify(branch)}: not a verification branch`);
  };
  return {
    async push(sha: string, branch: string) {
      check(branch);
      if (!/^[0-9a-f]{40,64}$/.test(sha)) throw new Error(`refusing to publish ${JSON.stringify(sha)}: not a commit id`);
      await remote().raw(["push", "--force", "--quiet", "--end-of-options", url, `${sha}:refs/heads/${branch}`]);
    },
    async remove(branch: string) {
      check(branch);
      await remote().raw(["push", "--quiet", "--end-of-options", url, `:refs/heads/${branch}`]);
    },
    /** Deletes what a crashed run of the same job left behind (`prefix` is `autogen/verify-job-<id>-`). */
    async sweep(prefix: string): Promise<string[]> {
      check(`${prefix}0`);
      const listed = await remote().raw(["ls-remote", "--heads", "--end-of-options", url, `refs/heads/${prefix}*`]);
      const stale = listed.split("\n").map((l) => l.split("\t")[1]?.replace(/^refs\/heads\//, "")).filter((b): b is string => b !== undefined && b.startsWith(prefix));
      for (const branch of stale) await this.remove(branch);
      return stale;
    },
  };
}

export async function applyStoredDiff(dir: string, diff: string): Promise<void> {
  const patchDir = await mkdtemp(join(tmpdir(), "autogen-patch-"));
  try {
    const path = join(patchDir, "change.diff");
    await writeFile(path, diff);
    // Files the engine rewrote with their original text have new timestamps: refresh first.
    await git(dir).raw(["update-index", "-q", "--refresh"]).catch(() => undefined);
    await git(dir).raw(["apply", "--index", path]);
  } finally {
    await rm(patchDir, { recursive: true, force: true });
  }
}
