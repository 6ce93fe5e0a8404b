// Red team: the bot's commit published through the Git Data API from a worktree a hostile
// repository (and its tests) shaped: symbolic links out of the worktree (to a sentinel
// file holding a canary, to /proc/self/environ while the canary is in the environment, to
// a directory outside), a hard link to the sentinel, `..` and `.git` paths, a FIFO, odd
// modes, a file over GitHub's size limit. Whatever is refused is refused before anything
// is uploaded; whatever is published carries only the worktree's own bytes (a link's text,
// never its target's content) with modes 100644, 100755 or 120000. Checked on everything
// sent to the fake GitHub and on the tree it stored in the real bare repository.
import { execFileSync } from "node:child_process";
import { chmod, link, mkdir, mkdtemp, symlink, truncate, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { commitAndPush } from "../../src/app/publish-change.ts";
import { botIdentity } from "../../src/forge/bot-identity.ts";
import { octokitGitData } from "../../src/forge/git-data.ts";
import type { GitTarget } from "../../src/forge/publish-commit.ts";
import { RepoCache, type Worktree } from "../../src/workspace/repo-cache.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";

const network = networkGuard();
const CANARY = "canary-9f3c1e7a-host-secret";
const ENV_CANARY = "canary-env-5d2b8c41-in-environ";
let remote: string;
let github: ReturnType<typeof fakeGitHub>;
let mirror: string;
let worktree: Worktree;
let target: GitTarget;
let outside: string;

const git = (...args: string[]) => execFileSync("git", ["--git-dir", remote, ...args], { encoding: "utf8" }).trim();
const writes = () => github.requests.filter((r) => r.method !== "GET");

/** Every byte sent to GitHub, the blobs decoded. */
function sent(): string {
  return github.requests
    .map((r) =>
      r.operation === "git/create-blob"
        ? Buffer.from(String(r.body?.content ?? ""), "base64").toString("latin1")
        : JSON.stringify(r.body ?? {}),
    )
    .join("\n");
}

/** The published tree's entries and every blob's content, from the remote. */
function published(ref: string): { modes: string[]; paths: string[]; content: string } {
  const lines = git("ls-tree", "-r", "-z", "--full-tree", ref).split("\0").filter(Boolean);
  const entries = lines.map((l) => ({
    mode: l.split(" ")[0] ?? "",
    sha: l.split(" ")[2]?.split("\t")[0] ?? "",
    path: l.slice(l.indexOf("\t") + 1),
  }));
  return {
    modes: entries.map((e) => e.mode),
    paths: entries.map((e) => e.path),
    content: entries
      .map((e) => execFileSync("git", ["--git-dir", remote, "cat-file", "blob", e.sha], { encoding: "latin1" }))
      .join("\n"),
  };
}

beforeEach(async () => {
  network.start();
  const work = await gitRepo({ "calc.py": "def add(a, b):\n    return a - b\n", "docs/readme.md": "docs\n" });
  remote = join(await mkdtemp(join(tmpdir(), "autogen-hostile-remote-")), "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  const state: FakeGitHubState = {
    issue: { title: "t", body: "b" },
    comments: [],
    pulls: [],
    permissions: {},
    files: {},
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
  const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-hostile-cache-")) });
  mirror = await cache.mirror(remote);
  worktree = await cache.worktree(mirror, "main", "job-1");
  target = {
    api: octokitGitData(new Octokit({ auth: "ghs_test", request: { retries: 0 } }) as never),
    owner: "octo-org",
    repo: "shop",
    identity: botIdentity({ slug: "autogen-test", id: 98765 }),
  };
  outside = await mkdtemp(join(tmpdir(), "autogen-hostile-outside-"));
  await writeFile(join(outside, "secret"), `${CANARY}\n`);
  await mkdir(join(outside, "dir"));
  await writeFile(join(outside, "dir", "secret.py"), `${CANARY}\n`);
  process.env.AUTOGEN_REDTEAM_CANARY = ENV_CANARY;
});

afterEach(async () => {
  delete process.env.AUTOGEN_REDTEAM_CANARY;
  await worktree.remove().catch(() => undefined);
  const { unmatched } = network.stop();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched).toEqual([]);
});

describe("publishing a commit from a hostile worktree", () => {
  it("links out of the worktree (absolute, relative, /proc/self/environ) and mode changes: links published as their text, modes only 100644/100755/120000, no outside content anywhere", async () => {
    const w = worktree.path;
    await writeFile(join(w, "calc.py"), "def add(a, b):\n    return a + b\n");
    await symlink(join(outside, "secret"), join(w, "abs-link"));
    await symlink("../../../../../../../../.." + join(outside, "secret"), join(w, "rel-link"));
    await symlink("/proc/self/environ", join(w, "environ"));
    await symlink(join(outside, "dir"), join(w, "dir-link"));
    await writeFile(join(w, "tool.sh"), "#!/bin/sh\n");
    await chmod(join(w, "tool.sh"), 0o4777);
    await writeFile(join(w, "group.txt"), "g\n");
    await chmod(join(w, "group.txt"), 0o664);
    await chmod(join(w, "docs/readme.md"), 0o750);
    const files = ["calc.py", "abs-link", "rel-link", "environ", "dir-link", "tool.sh", "group.txt", "docs/readme.md"];

    const sha = await commitAndPush(worktree, mirror, target, "autogen/issue-1", "Fix #1", files);

    const tree = published(sha);
    expect(tree.paths.sort()).toEqual([
      "abs-link",
      "calc.py",
      "dir-link",
      "docs/readme.md",
      "environ",
      "group.txt",
      "rel-link",
      "tool.sh",
    ]);
    expect(new Set(tree.modes)).toEqual(new Set(["100644", "100755", "120000"]));
    expect(
      git("ls-tree", sha, "environ", "dir-link", "abs-link", "rel-link")
        .split("\n")
        .map((l) => l.split(" ")[0]),
    ).toEqual(["120000", "120000", "120000", "120000"]);
    expect(
      git("ls-tree", sha, "tool.sh", "docs/readme.md", "group.txt")
        .split("\n")
        .map((l) => `${l.split(" ")[0]} ${l.split("\t")[1]}`),
    ).toEqual(["100755 docs/readme.md", "100644 group.txt", "100755 tool.sh"]);
    expect(git("cat-file", "blob", `${sha}:environ`)).toBe("/proc/self/environ");
    expect(git("cat-file", "blob", `${sha}:dir-link`)).toBe(join(outside, "dir"));
    for (const text of [tree.content, sent()]) {
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(ENV_CANARY);
    }
    expect(sent()).not.toContain(Buffer.from(CANARY).toString("base64").slice(0, 24));
  });

  it.each([
    ["a path out of the worktree", ["calc.py", "../outside-secret"]],
    ["a `..` that leaves after a detour", ["calc.py", "docs/../../secret"]],
    ["a path through a linked directory", ["calc.py", "dir-link/secret.py"]],
    ["the worktree's .git", ["calc.py", ".git"]],
    ["a file in .git", ["calc.py", ".git/config"]],
    ["a .GIT in another case", ["calc.py", "docs/.GIT/hooks/pre-commit"]],
    ["an absolute path", ["calc.py", "/etc/passwd"]],
    ["a hard link to a file outside", ["calc.py", "hard.txt"]],
    ["a FIFO", ["calc.py", "pipe"]],
    ["a directory", ["calc.py", "docs"]],
  ])("%s: refused before anything is uploaded, the branch never made", async (_what, files) => {
    const w = worktree.path;
    await writeFile(join(w, "calc.py"), "def add(a, b):\n    return a + b\n");
    await symlink(join(outside, "dir"), join(w, "dir-link"));
    await link(join(outside, "secret"), join(w, "hard.txt"));
    execFileSync("mkfifo", [join(w, "pipe")]);
    await expect(commitAndPush(worktree, mirror, target, "autogen/issue-1", "Fix #1", files)).rejects.toThrow(
      /refusing/,
    );
    expect(writes()).toEqual([]);
    expect(sent()).not.toContain(CANARY);
    expect(git("for-each-ref", "refs/heads/autogen/")).toBe("");
  });

  it("a file over GitHub's 100 MiB limit: refused with a clear error before it is uploaded", async () => {
    await writeFile(join(worktree.path, "calc.py"), "def add(a, b):\n    return a + b\n");
    // Sparse: no disk used, but 101 MiB to read.
    await writeFile(join(worktree.path, "huge.bin"), "");
    await truncate(join(worktree.path, "huge.bin"), 101 * 1024 * 1024);
    await expect(
      commitAndPush(worktree, mirror, target, "autogen/issue-1", "Fix #1", ["calc.py", "huge.bin"]),
    ).rejects.toThrow(/refusing to publish huge\.bin: .*larger than GitHub.s 100 MiB/);
    expect(writes()).toEqual([]);
    expect(git("for-each-ref", "refs/heads/autogen/")).toBe("");
  });
});
