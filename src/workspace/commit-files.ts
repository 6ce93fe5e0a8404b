// Makes the bot's commit without running git in the worktree the tests ran in: the
// changed files' bytes are read (a regular file's content, or a symbolic link's own
// target text, committed as a link with mode 120000: a link is never followed),
// written as blobs straight into the repository's object store, and a commit is built
// on the known parent with a private index, in the repository's own git dir, which no
// test could write. Nothing here runs a hook, a filter or an fsmonitor.
import { lstat, mkdtemp, readFile, readlink, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { BOT_IDENTITY, git, worktreeRecord } from "./git.ts";
import { safeRepoPath } from "./safe-path.ts";

export type CommitRequest = {
  /** The repository's git dir (a bare mirror, or a checkout's common `.git`). */
  gitDir: string;
  /** The commit the worktree was made from; the new commit's parent. */
  parent: string;
  /** Where the engine left the changed files. */
  workTree: string;
  /** Repository-relative paths to take from the work tree; a missing one is deleted. */
  files: string[];
  message: string;
  /** Author and committer (default: the CLI's autogen-bot). */
  identity?: { name: string; email: string } | undefined;
};

export class UnsafeCommitError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UnsafeCommitError";
  }
}

export async function commitFiles(request: CommitRequest): Promise<string> {
  if (!/^[0-9a-f]{40,64}$/.test(request.parent)) throw new UnsafeCommitError(`refusing to commit on ${JSON.stringify(request.parent)}: not a commit id`);
  const scratch = await mkdtemp(join(tmpdir(), "autogen-commit-"));
  try {
    // The scratch dir stands in as the work tree (a bare mirror has none; removing an index entry needs one).
    const g = git(scratch, { gitDir: request.gitDir, indexFile: join(scratch, "index"), workTree: scratch });
    await g.raw(["read-tree", request.parent]);
    for (const file of [...new Set(request.files)]) {
      const path = safeRepoPath(request.workTree, file, { finalLink: true });
      const stat = await lstat(path).catch(() => undefined);
      if (!stat) {
        await g.raw(["update-index", "--force-remove", "--", file]);
        continue;
      }
      if (!stat.isFile() && !stat.isSymbolicLink()) throw new UnsafeCommitError(`refusing to commit ${file}: it is not a regular file or a symbolic link (a directory now stands there)`);
      // A copy of ours, so what git hashes is what we read: a link's target text, never what it points at.
      const copy = join(scratch, "blob");
      await writeFile(copy, stat.isSymbolicLink() ? await readlink(path, { encoding: "buffer" }) : await readFile(path));
      const blob = (await g.raw(["hash-object", "-w", "--no-filters", "--", copy])).trim();
      // The executable bit as the work tree has it (git's core.fileMode).
      const mode = stat.isSymbolicLink() ? "120000" : stat.mode & 0o100 ? "100755" : "100644";
      await g.raw(["update-index", "--add", "--cacheinfo", `${mode},${blob},${file}`]);
    }
    const tree = (await g.raw(["write-tree"])).trim();
    const identity = request.identity ? ["-c", `user.name=${request.identity.name}`, "-c", `user.email=${request.identity.email}`] : BOT_IDENTITY;
    return (await g.raw([...identity, "commit-tree", tree, "-p", request.parent, "-m", request.message])).trim();
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}

/** The CLI's commit: a new branch in the user's repository, made from the worktree's files; the user's checkout is not touched. */
export async function commitOnNewBranch(worktree: string, branch: string, files: string[], message: string): Promise<string> {
  const record = worktreeRecord(worktree);
  if (!record) throw new UnsafeCommitError(`no record of the worktree ${worktree}: it was not made by addWorktree`);
  const sha = await commitFiles({ gitDir: record.commonDir, parent: record.sha, workTree: worktree, files, message });
  // The empty old value: create the branch, never move an existing one.
  await git(record.commonDir, { gitDir: record.commonDir }).raw(["update-ref", "--end-of-options", `refs/heads/${branch}`, sha, ""]);
  return sha;
}
