// Makes the bot's commit without running git in the worktree the tests ran in: the
// changed files' bytes are read (a regular file's content, never one with other hard
// links, or a symbolic link's own target text, committed as a link with mode 120000: a
// link is never followed), written as blobs straight into the repository's object store,
// and a commit is built on the known parent with a private index, in the repository's
// own git dir, which no test could write. Nothing here runs a hook, a filter or an fsmonitor.
import { constants } from "node:fs";
import { lstat, open, readlink, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { BOT_IDENTITY, worktreeRecord } from "./git.ts";
import { runGit } from "./run-git.ts";
import { safeRepoPath } from "./safe-path.ts";
import { makeTempDir, removeTempDir } from "./temp-dirs.ts";

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
  if (!/^[0-9a-f]{40,64}$/.test(request.parent))
    throw new UnsafeCommitError(`refusing to commit on ${JSON.stringify(request.parent)}: not a commit id`);
  const scratch = await makeTempDir("autogen-commit-");
  try {
    // The scratch dir stands in as the work tree (a bare mirror has none; removing an index entry needs one).
    const place = { cwd: scratch, gitDir: request.gitDir, indexFile: join(scratch, "index"), workTree: scratch };
    const g = (args: string[]) => runGit(args, place);
    await g(["read-tree", request.parent]);
    for (const file of [...new Set(request.files)]) {
      const path = safeRepoPath(request.workTree, file, { finalLink: true });
      const stat = await lstat(path).catch(() => undefined);
      if (!stat) {
        await g(["update-index", "--force-remove", "--", file]);
        continue;
      }
      if (!stat.isFile() && !stat.isSymbolicLink())
        throw new UnsafeCommitError(
          `refusing to commit ${file}: it is not a regular file or a symbolic link (a directory now stands there)`,
        );
      // A copy of ours, so what git hashes is what we read: a link's target text, never what it points at.
      const copy = join(scratch, "blob");
      const regular = stat.isSymbolicLink() ? undefined : await readRegularFile(path, file);
      await writeFile(copy, regular ? regular.content : await readlink(path, { encoding: "buffer" }));
      const blob = (await g(["hash-object", "-w", "--no-filters", "--", copy])).trim();
      // The executable bit as the work tree has it (git's core.fileMode).
      const mode = !regular ? "120000" : regular.mode & 0o100 ? "100755" : "100644";
      await g(["update-index", "--add", "--cacheinfo", `${mode},${blob},${file}`]);
    }
    const tree = (await g(["write-tree"])).trim();
    const identity = request.identity
      ? ["-c", `user.name=${request.identity.name}`, "-c", `user.email=${request.identity.email}`]
      : BOT_IDENTITY;
    return (await g([...identity, "commit-tree", tree, "-p", request.parent, "-m", request.message])).trim();
  } finally {
    await removeTempDir(scratch);
  }
}

/**
 * A regular file's bytes and mode, read through one handle that does not follow a link (a
 * link swapped in after the check) and refused when the file has other hard links: one
 * could be a file outside the worktree (a hostile test's `ln /host/secret leak`).
 */
async function readRegularFile(path: string, file: string): Promise<{ content: Buffer; mode: number }> {
  const handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0)).catch(
    (error: NodeJS.ErrnoException) => {
      throw new UnsafeCommitError(
        `refusing to commit ${file}: it cannot be opened as a regular file (${error.code ?? error.message})`,
      );
    },
  );
  try {
    const stat = await handle.stat();
    if (!stat.isFile()) throw new UnsafeCommitError(`refusing to commit ${file}: it is not a regular file`);
    if (stat.nlink > 1)
      throw new UnsafeCommitError(
        `refusing to commit ${file}: it has other hard links, which may be outside the repository`,
      );
    return { content: await handle.readFile(), mode: stat.mode };
  } finally {
    await handle.close();
  }
}

/** The CLI's commit: a new branch in the user's repository, made from the worktree's files; the user's checkout is not touched. */
export async function commitOnNewBranch(
  worktree: string,
  branch: string,
  files: string[],
  message: string,
): Promise<string> {
  const record = worktreeRecord(worktree);
  if (!record) throw new UnsafeCommitError(`no record of the worktree ${worktree}: it was not made by addWorktree`);
  const sha = await commitFiles({ gitDir: record.commonDir, parent: record.sha, workTree: worktree, files, message });
  // The empty old value: create the branch, never move an existing one.
  await runGit(["update-ref", "--end-of-options", `refs/heads/${branch}`, sha, ""], {
    cwd: record.commonDir,
    gitDir: record.commonDir,
  });
  return sha;
}
