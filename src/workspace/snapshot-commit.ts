// The state of a workspace (committed or not) as a commit, without touching its branch,
// index or files: a private index is filled from HEAD and the working tree (ignored files
// stay out), written as a tree and committed on top of HEAD. The Actions verifier pushes
// this commit to a bot branch so a runner can test exactly what is on disk here.
import { join } from "node:path";
import { worktreeRecord } from "./git.ts";
import { runGit } from "./run-git.ts";
import { makeTempDir, removeTempDir } from "./temp-dirs.ts";

export async function snapshotCommit(dir: string, message: string): Promise<string> {
  const scratch = await makeTempDir("autogen-index-");
  try {
    // A worktree the bot made is addressed through the git dir it recorded, not the `.git` file tests could reach.
    const record = worktreeRecord(dir);
    const place = {
      cwd: dir,
      indexFile: join(scratch, "index"),
      ...(record ? { gitDir: record.gitDir, workTree: dir } : {}),
    };
    const g = (args: string[]) => runGit(args, place);
    await g(["read-tree", "HEAD"]);
    await g(["add", "--all", "--", "."]);
    const tree = (await g(["write-tree"])).trim();
    // The commit and its tree in one call (each git call is a process forked from the bot's).
    const [head = "", headTree = ""] = (await g(["rev-parse", "HEAD", "HEAD^{tree}"])).trim().split("\n");
    // Nothing changed: test the commit itself.
    if (tree === headTree) return head;
    const commit = await g([
      "-c",
      "user.name=autogen-bot",
      "-c",
      "user.email=autogen-bot@users.noreply.github.com",
      "commit-tree",
      tree,
      "-p",
      head,
      "-m",
      message,
    ]);
    return commit.trim();
  } finally {
    await removeTempDir(scratch);
  }
}
