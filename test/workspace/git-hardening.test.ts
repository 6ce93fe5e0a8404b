// Git never runs a program a repository chose: hooks, fsmonitor and config planted in
// the repository's git dir (as a test with write access to it would plant them) do not
// fire for any git call the bot makes, and the commit is made from the git dir recorded
// before the tests ran, even when a test replaced the worktree's `.git` file.
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { chmod, mkdir, mkdtemp, readFile, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Octokit } from "@octokit/rest";
import { commitAndPush } from "../../src/app/publish-change.ts";
import { botIdentity } from "../../src/forge/bot-identity.ts";
import { octokitGitData } from "../../src/forge/git-data.ts";
import { fakeGitHub } from "../support/fake-github.ts";
import { networkGuard } from "../support/network-guard.ts";
import { commitOnNewBranch } from "../../src/workspace/commit-files.ts";
import { addWorktree, gitDir, removeWorktree } from "../../src/workspace/git.ts";
import { runGit } from "../../src/workspace/run-git.ts";
import { RepoCache } from "../../src/workspace/repo-cache.ts";
import { snapshotCommit } from "../../src/workspace/snapshot-commit.ts";
import { gitRepo } from "../support/git-repo.ts";

const network = networkGuard();

const HOOKS = [
  "pre-commit",
  "post-commit",
  "commit-msg",
  "reference-transaction",
  "post-checkout",
  "pre-push",
  "post-index-change",
  "pre-auto-gc",
  "post-rewrite",
];

/** Plants every hook and an fsmonitor in `dir` (a git dir); each writes its name into `markers` when run. */
async function plant(dir: string, markers: string): Promise<void> {
  await mkdir(join(dir, "hooks"), { recursive: true });
  await mkdir(markers, { recursive: true });
  const script = (name: string) => `#!/bin/sh\necho "$(env)" > "${markers}/${name}"\nexit 0\n`;
  for (const hook of HOOKS) {
    await writeFile(join(dir, "hooks", hook), script(hook));
    await chmod(join(dir, "hooks", hook), 0o755);
  }
  await writeFile(join(markers, "..", "fsmonitor.sh"), script("fsmonitor"));
  await chmod(join(markers, "..", "fsmonitor.sh"), 0o755);
  const config = join(dir, "config");
  const text = existsSync(config) ? await readFile(config, "utf8") : "";
  await writeFile(
    config,
    `${text}\n[core]\n\tfsmonitor = ${join(markers, "..", "fsmonitor.sh")}\n\tsshCommand = ${join(markers, "..", "fsmonitor.sh")}\n[credential]\n\thelper = !${join(markers, "..", "fsmonitor.sh")}\n`,
  );
}

async function fired(markers: string): Promise<string[]> {
  const { readdir } = await import("node:fs/promises");
  return existsSync(markers) ? (await readdir(markers)).sort() : [];
}

describe("git as the bot runs it", () => {
  it("fires no hook and no fsmonitor planted in the user's repository (CLI path: worktree, commit on a new branch)", async () => {
    const repo = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
    const scratch = await mkdtemp(join(tmpdir(), "autogen-hooks-"));
    const markers = join(scratch, "markers");
    await plant(await gitDir(repo), markers);
    const worktree = join(scratch, "wt");
    await addWorktree(repo, worktree);
    await writeFile(join(worktree, "calc.py"), "def add(a, b):\n    return a + b\n");
    const sha = await commitOnNewBranch(worktree, "autogen/fix-add", ["calc.py"], "Fix add");
    await removeWorktree(repo, worktree);
    expect(await fired(markers)).toEqual([]);
    // The branch holds the fix; the user's branch and files are untouched.
    expect(execFileSync("git", ["-C", repo, "show", `autogen/fix-add:calc.py`], { encoding: "utf8" })).toContain(
      "return a + b",
    );
    expect(execFileSync("git", ["-C", repo, "rev-parse", "autogen/fix-add"], { encoding: "utf8" }).trim()).toBe(sha);
    expect(await readFile(join(repo, "calc.py"), "utf8")).toContain("return a - b");

    // The control: plain git in the same repository does run them, so the assertion above means something.
    execFileSync(
      "git",
      ["-C", repo, "-c", "user.name=x", "-c", "user.email=y@z", "commit", "--allow-empty", "-qm", "control"],
      { env: { PATH: process.env.PATH, HOME: scratch } },
    );
    expect(await fired(markers)).toEqual(
      expect.arrayContaining(["fsmonitor", "pre-commit", "post-commit", "reference-transaction"]),
    );
  });

  it("commits from the recorded git dir even when a test replaced the worktree's .git file with a hostile git dir", async () => {
    const repo = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
    const scratch = await mkdtemp(join(tmpdir(), "autogen-dotgit-"));
    const worktree = join(scratch, "wt");
    await addWorktree(repo, worktree);
    // What a hostile test could do without the sandbox: a .git directory of its own, with hooks and fsmonitor.
    await rm(join(worktree, ".git"));
    execFileSync("git", ["init", "-q", "--separate-git-dir", join(scratch, "evil.git"), worktree]);
    const markers = join(scratch, "markers");
    await plant(join(scratch, "evil.git"), markers);
    await writeFile(join(worktree, "calc.py"), "def add(a, b):\n    return a + b\n");
    await commitOnNewBranch(worktree, "autogen/fix", ["calc.py"], "Fix add");
    expect(await fired(markers)).toEqual([]);
    expect(execFileSync("git", ["-C", repo, "show", "autogen/fix:calc.py"], { encoding: "utf8" })).toContain(
      "return a + b",
    );
  });

  it("commits a changed file that a test turned into a symbolic link as a link (its target's text), never the file it points at", async () => {
    const repo = await gitRepo({ "calc.py": "x = 1\n" });
    const scratch = await mkdtemp(join(tmpdir(), "autogen-link-"));
    const worktree = join(scratch, "wt");
    await addWorktree(repo, worktree);
    await writeFile(join(scratch, "host-secret"), "host file content\n");
    await rm(join(worktree, "calc.py"));
    await symlink(join(scratch, "host-secret"), join(worktree, "calc.py"));
    await commitOnNewBranch(worktree, "autogen/x", ["calc.py"], "m");
    expect(execFileSync("git", ["-C", repo, "ls-tree", "autogen/x", "--", "calc.py"], { encoding: "utf8" })).toMatch(
      /^120000 blob /,
    );
    expect(execFileSync("git", ["-C", repo, "show", "autogen/x:calc.py"], { encoding: "utf8" })).toBe(
      join(scratch, "host-secret"),
    );
    // A link in a directory that is itself a link is still refused (the path would leave the worktree).
    await symlink(scratch, join(worktree, "dir"));
    await expect(commitOnNewBranch(worktree, "autogen/y", ["dir/host-secret"], "m")).rejects.toThrow(/symbolic link/);
  });

  it("fires no hook planted in the shared mirror (App path: worktree, reset, snapshot, commit and publish through the API)", async () => {
    const origin = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n" });
    const remote = await mkdtemp(join(tmpdir(), "autogen-remote-"));
    execFileSync("git", ["clone", "-q", "--bare", origin, join(remote, "r.git")]);
    const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-cache-")) });
    const url = join(remote, "r.git");
    const mirror = await cache.mirror(url);
    const scratch = await mkdtemp(join(tmpdir(), "autogen-mirrorhooks-"));
    const markers = join(scratch, "markers");
    await plant(mirror, markers);
    const worktree = await cache.worktree(mirror, "main", "job-1");
    await writeFile(join(worktree.path, "calc.py"), "def add(a, b):\n    return a + b\n");
    await snapshotCommit(worktree.path, "snapshot");
    await worktree.reset();
    await writeFile(join(worktree.path, "calc.py"), "def add(a, b):\n    return a + b\n");
    const token = "ghs_canaryInstallationToken0123456789";
    network.start();
    const github = fakeGitHub({
      issue: { title: "t", body: "b" },
      comments: [],
      pulls: [],
      permissions: {},
      files: {},
      defaultBranch: "main",
      cloneUrl: url,
    });
    const target = {
      api: octokitGitData(new Octokit({ auth: token, request: { retries: 0 } }) as never),
      owner: "o",
      repo: "r",
      identity: botIdentity({ slug: "autogen-test", id: 98765 }),
    };
    try {
      const sha = await commitAndPush(worktree, mirror, target, "autogen/issue-1", "Fix #1", ["calc.py"]);
      await worktree.remove();
      expect(await fired(markers)).toEqual([]);
      expect(execFileSync("git", ["-C", url, "rev-parse", "autogen/issue-1"], { encoding: "utf8" }).trim()).toBe(sha);
      expect(execFileSync("git", ["-C", url, "show", "autogen/issue-1:calc.py"], { encoding: "utf8" })).toContain(
        "return a + b",
      );
      expect(github.errors).toEqual([]);
    } finally {
      network.stop();
    }
    // No git command ever held the token: nothing on disk does.
    const grep = spawnSync("grep", ["-rl", token, mirror, remote], { encoding: "utf8" });
    expect(grep.status).toBe(1);
    expect(grep.stdout).toBe("");
  });

  it("ignores the system and global configuration (an include or alias there cannot reach the bot's git)", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const home = await mkdtemp(join(tmpdir(), "autogen-home-"));
    await writeFile(
      join(home, ".gitconfig"),
      "[core]\n\thooksPath = /nonexistent-evil\n[user]\n\tname = Global Name\n",
    );
    const previous = process.env.HOME;
    process.env.HOME = home;
    try {
      const name = await runGit(["config", "--get", "user.name"], { cwd: repo }).catch(() => "");
      expect(name.trim()).toBe("");
      expect((await runGit(["config", "--get", "core.hooksPath"], { cwd: repo })).trim()).toBe("/dev/null");
    } finally {
      process.env.HOME = previous;
    }
  });
});
