// snapshotCommit: the workspace as it is on disk (committed or not) as a commit on top of
// HEAD, its branch, index and files untouched, in as few git processes as the steps need
// (each is forked from the bot's process, whose size makes a fork costly).
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { snapshotCommit } from "../../src/workspace/snapshot-commit.ts";
import { gitRepo } from "../support/git-repo.ts";

const PATH = process.env.PATH;
afterEach(() => {
  process.env.PATH = PATH;
});

/** Puts a `git` first on PATH that logs each call's arguments to the returned file, then runs the real git. */
async function countGit(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-git-log-"));
  const real = execFileSync("sh", ["-c", "command -v git"], { encoding: "utf8" }).trim();
  const log = join(dir, "calls");
  await writeFile(log, "");
  await writeFile(join(dir, "git"), `#!/bin/sh\necho "$*" >> '${log}'\nexec '${real}' "$@"\n`);
  await chmod(join(dir, "git"), 0o755);
  process.env.PATH = `${dir}:${PATH ?? ""}`;
  return log;
}

const calls = async (log: string) => (await readFile(log, "utf8")).trim().split("\n").filter(Boolean);
const git = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();

describe("snapshotCommit", () => {
  it("commits the changed workspace on top of HEAD in five git calls, leaving branch and index as they were", async () => {
    const repo = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
    await writeFile(join(repo, "calc.py"), "def add(a, b):\n    return a + b\n");
    await writeFile(join(repo, "new.py"), "X = 1\n");
    const head = git(repo, "rev-parse", "HEAD");
    const log = await countGit();
    const sha = await snapshotCommit(repo, "snapshot");
    process.env.PATH = PATH;
    // read-tree, add, write-tree, rev-parse (the commit and its tree at once), commit-tree.
    expect(await calls(log)).toHaveLength(5);
    expect(git(repo, "rev-parse", `${sha}^`)).toBe(head);
    expect(git(repo, "show", `${sha}:calc.py`)).toContain("return a + b");
    expect(git(repo, "show", `${sha}:new.py`)).toBe("X = 1");
    expect(git(repo, "rev-parse", "HEAD")).toBe(head);
    expect(git(repo, "status", "--porcelain")).toBe("M calc.py\n?? new.py");
  });

  it("gives HEAD itself when nothing changed, in four git calls", async () => {
    const repo = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
    const head = git(repo, "rev-parse", "HEAD");
    const log = await countGit();
    expect(await snapshotCommit(repo, "snapshot")).toBe(head);
    expect(await calls(log)).toHaveLength(4);
  });
});
