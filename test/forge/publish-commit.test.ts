// Publishing through the Git Data API against the fake GitHub, whose git data operations
// run for real on a local bare repository: the commit GitHub makes is the bot's, holds the
// change's tree (modes, deletions, symbolic links as links) on the base commit, and the
// branch lease refuses to overwrite a branch that moved while the bot was publishing.
import { execFileSync } from "node:child_process";
import { chmod, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { branchPublisher, commitAndPush } from "../../src/app/publish-change.ts";
import { ACTIONS_BOT, appBotIdentity, botIdentity, cachedIdentity } from "../../src/forge/bot-identity.ts";
import { octokitGitData } from "../../src/forge/git-data.ts";
import { BranchMovedError, GitDataError, type GitTarget } from "../../src/forge/publish-commit.ts";
import { RepoCache, type Worktree } from "../../src/workspace/repo-cache.ts";
import { snapshotCommit } from "../../src/workspace/snapshot-commit.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";

const network = networkGuard();
const BOT = botIdentity({ slug: "autogen-test", id: 98765 });
let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let mirror: string;
let worktree: Worktree;
let target: GitTarget;
let work: string;

const git = (...args: string[]) => execFileSync("git", ["--git-dir", remote, ...args], { encoding: "utf8" }).trim();

beforeEach(async () => {
  network.start();
  work = await gitRepo({
    "calc.py": "def add(a, b):\n    return a - b\n",
    "run.sh": "#!/bin/sh\necho old\n",
    "old.txt": "to be deleted\n",
  });
  execFileSync("git", ["-C", work, "update-index", "--chmod=+x", "run.sh"]);
  execFileSync("git", ["-C", work, "-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "-qm", "exec"]);
  remote = join(await mkdtemp(join(tmpdir(), "autogen-gitdata-")), "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  state = {
    issue: { title: "t", body: "b" },
    comments: [],
    pulls: [],
    permissions: {},
    files: {},
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
  const cache = new RepoCache({ root: await mkdtemp(join(tmpdir(), "autogen-gitdata-cache-")) });
  mirror = await cache.mirror(remote);
  worktree = await cache.worktree(mirror, "main", "job-1");
  target = {
    api: octokitGitData(new Octokit({ auth: "ghs_test", request: { retries: 0 } }) as never),
    owner: "octo-org",
    repo: "shop",
    identity: BOT,
  };
});

afterEach(async () => {
  await worktree.remove().catch(() => undefined);
  const { unmatched } = network.stop();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched).toEqual([]);
});

describe("commitAndPush through the Git Data API", () => {
  it("makes the bot's commit on the base with the change's tree: executable bit, deletion, a link kept as a link (never followed)", async () => {
    const outside = await mkdtemp(join(tmpdir(), "autogen-outside-"));
    await writeFile(join(outside, "secret"), "host secret content\n");
    await writeFile(join(worktree.path, "calc.py"), "def add(a, b):\n    return a + b\n");
    await writeFile(join(worktree.path, "run.sh"), "#!/bin/sh\necho new\n");
    await writeFile(join(worktree.path, "tool.sh"), "#!/bin/sh\n");
    await chmod(join(worktree.path, "tool.sh"), 0o755);
    await rm(join(worktree.path, "old.txt"));
    await symlink(join(outside, "secret"), join(worktree.path, "link"));
    const files = ["calc.py", "run.sh", "tool.sh", "old.txt", "link"];

    const sha = await commitAndPush(
      worktree,
      mirror,
      target,
      "autogen/issue-1",
      "Fix #1\n\nCo-authored-by: m <7+m@users.noreply.github.com>",
      files,
    );

    expect(git("rev-parse", "autogen/issue-1")).toBe(sha);
    expect(git("log", "-1", "--format=%an <%ae>|%cn <%ce>", sha)).toBe(
      `${BOT.name} <${BOT.email}>|${BOT.name} <${BOT.email}>`,
    );
    expect(BOT.email).toBe("98765+autogen-test[bot]@users.noreply.github.com");
    expect(git("log", "-1", "--format=%P", sha)).toBe(worktree.sha);
    expect(git("log", "-1", "--format=%B", sha)).toContain("Co-authored-by: m <7+m@users.noreply.github.com>");
    const tree = git("ls-tree", "-r", sha);
    expect(tree).toMatch(/^100755 blob \w+\trun\.sh$/m);
    expect(tree).toMatch(/^100755 blob \w+\ttool\.sh$/m);
    expect(tree).toMatch(/^100644 blob \w+\tcalc\.py$/m);
    expect(tree).toMatch(/^120000 blob \w+\tlink$/m);
    expect(tree).not.toContain("old.txt");
    expect(git("show", `${sha}:link`)).toBe(join(outside, "secret"));
    expect(git("show", `${sha}:calc.py`)).toContain("return a + b");
    // The secret the link points at never left the host.
    expect(JSON.stringify(github.calls("git/create-blob"))).not.toContain(
      Buffer.from("host secret content\n").toString("base64"),
    );
    expect(github.calls("git/create-tree")[0]?.body).toMatchObject({ base_tree: git("rev-parse", "main^{tree}") });
    // No author or committer is sent: GitHub records (and signs as) the authenticated bot.
    expect(github.calls("git/create-commit")[0]?.body).not.toHaveProperty("author");
    expect(github.calls("git/create-commit")[0]?.body).not.toHaveProperty("committer");
    expect(github.refUpdates("refs/heads/autogen/issue-1")).toEqual(["fake-github git/create-ref"]);
  });

  it("replaces the bot's earlier attempt, and moves a branch at the base by a fast-forward (no force)", async () => {
    await writeFile(join(worktree.path, "calc.py"), "first\n");
    const first = await commitAndPush(worktree, mirror, target, "autogen/issue-1", "first", ["calc.py"]);
    await writeFile(join(worktree.path, "calc.py"), "second\n");
    const second = await commitAndPush(worktree, mirror, target, "autogen/issue-1", "second", ["calc.py"]);
    expect(git("rev-parse", "autogen/issue-1")).toBe(second);
    expect(git("log", "-1", "--format=%P", second)).toBe(worktree.sha);
    expect(first).not.toBe(second);
    expect(github.calls("git/update-ref").map((r) => r.body?.force)).toEqual([true]);

    // A branch at the base commit: the new commit is a fast-forward, sent without force.
    execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/review", worktree.sha]);
    await commitAndPush(worktree, mirror, target, "review", "on top", ["calc.py"]);
    expect(github.calls("git/update-ref").map((r) => r.body?.force)).toEqual([true, false]);
  });

  it("refuses, with a clear error, to overwrite a branch someone moved while the bot was publishing; their commit stays", async () => {
    execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/review", worktree.sha]);
    execFileSync("git", [
      "-C",
      work,
      "-c",
      "user.name=H",
      "-c",
      "user.email=h@example.invalid",
      "commit",
      "-q",
      "--allow-empty",
      "-m",
      "human",
    ]);
    const human = execFileSync("git", ["-C", work, "rev-parse", "HEAD"], { encoding: "utf8" }).trim();
    execFileSync("git", ["-C", work, "push", "-q", remote, `${human}:refs/heads/incoming`]);
    // Someone pushes to the branch between the bot's read of it and its update.
    state.beforeRefUpdate = (_op, ref) => {
      if (ref.endsWith("/review")) execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/review", human]);
    };
    await writeFile(join(worktree.path, "calc.py"), "mine\n");
    const attempt = commitAndPush(worktree, mirror, target, "review", "mine", ["calc.py"]);
    await expect(attempt).rejects.toThrow(BranchMovedError);
    await expect(attempt).rejects.toThrow(
      /review changed on GitHub while the bot was publishing .*nothing was overwritten/,
    );
    expect(git("rev-parse", "review")).toBe(human);

    // The bot's own earlier attempt (not a fast-forward) moved meanwhile: refused too.
    await writeFile(join(worktree.path, "calc.py"), "first\n");
    state.beforeRefUpdate = undefined;
    await commitAndPush(worktree, mirror, target, "autogen/issue-2", "first", ["calc.py"]);
    let moved = false;
    github.requests.length = 0;
    const original = target.api.getBranch;
    target = {
      ...target,
      api: {
        ...target.api,
        getBranch: async (...args) => {
          const seen = await original(...args);
          // After the first read: a human pushes to the branch.
          if (!moved) {
            moved = true;
            execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/autogen/issue-2", human]);
          }
          return seen;
        },
      },
    };
    await writeFile(join(worktree.path, "calc.py"), "second\n");
    await expect(commitAndPush(worktree, mirror, target, "autogen/issue-2", "second", ["calc.py"])).rejects.toThrow(
      BranchMovedError,
    );
    expect(git("rev-parse", "autogen/issue-2")).toBe(human);
    expect(github.calls("git/update-ref")).toEqual([]);

    // A branch that appeared meanwhile is not overwritten either.
    state.beforeRefUpdate = (op, ref) => {
      if (op === "git/create-ref" && ref.endsWith("/issue-3"))
        execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/autogen/issue-3", human]);
    };
    await expect(commitAndPush(worktree, mirror, target, "autogen/issue-3", "third", ["calc.py"])).rejects.toThrow(
      /created meanwhile/,
    );
    expect(git("rev-parse", "autogen/issue-3")).toBe(human);
  });

  it("refuses a commit GitHub attributes to someone else than the bot, before the branch moves", async () => {
    await writeFile(join(worktree.path, "calc.py"), "x\n");
    const wrong = { ...target, identity: ACTIONS_BOT };
    await expect(commitAndPush(worktree, mirror, wrong, "autogen/issue-1", "m", ["calc.py"])).rejects.toThrow(
      GitDataError,
    );
    await expect(commitAndPush(worktree, mirror, wrong, "autogen/issue-1", "m", ["calc.py"])).rejects.toThrow(
      /not github-actions\[bot\] <41898282\+github-actions\[bot\]@users\.noreply\.github\.com>/,
    );
    expect(() => git("rev-parse", "--verify", "-q", "autogen/issue-1")).toThrow();
  });
});

describe("the Actions verifier's branches", () => {
  it("are published as the bot, overwritten, listed and swept through the API", async () => {
    const publish = branchPublisher(mirror, target);
    await writeFile(join(worktree.path, "calc.py"), "candidate 1\n");
    await publish.push(await snapshotCommit(worktree.path, "candidate"), "autogen/verify-job-5-1");
    await writeFile(join(worktree.path, "calc.py"), "candidate 2\n");
    await publish.push(await snapshotCommit(worktree.path, "candidate"), "autogen/verify-job-5-1");
    await publish.push(await snapshotCommit(worktree.path, "candidate"), "autogen/verify-job-5-2");
    expect(git("show", "autogen/verify-job-5-1:calc.py")).toBe("candidate 2");
    expect(git("log", "-1", "--format=%an", "autogen/verify-job-5-2")).toBe(BOT.name);
    expect(github.calls("git/update-ref").map((r) => r.body)).toEqual([
      { sha: git("rev-parse", "autogen/verify-job-5-1"), force: true },
    ]);
    // An unchanged workspace is tested as the commit GitHub already has: only the branch is made.
    const commits = github.calls("git/create-commit").length;
    await publish.push(worktree.sha, "autogen/verify-job-5-3");
    expect(git("rev-parse", "autogen/verify-job-5-3")).toBe(worktree.sha);
    expect(github.calls("git/create-commit")).toHaveLength(commits);
    expect(await publish.sweep("autogen/verify-job-5-")).toEqual([
      "autogen/verify-job-5-1",
      "autogen/verify-job-5-2",
      "autogen/verify-job-5-3",
    ]);
    expect(git("for-each-ref", "refs/heads/autogen/")).toBe("");
    expect(github.calls("git/list-matching-refs").map((r) => decodeURIComponent(r.path))).toEqual([
      "/repos/octo-org/shop/git/matching-refs/heads/autogen/verify-job-5-",
    ]);
    await expect(publish.push(worktree.sha, "autogen/issue-1")).rejects.toThrow(/not a verification branch/);
  });
});

describe("the bot's identity", () => {
  it("is <slug>[bot] with the bot user's id, asked of GitHub once", async () => {
    const octokit = new Octokit({ auth: "ghs_test", request: { retries: 0 } });
    const identity = cachedIdentity(() => appBotIdentity(octokit as never, octokit as never));
    expect(await identity(undefined)).toEqual(BOT);
    expect(await identity(undefined)).toEqual(BOT);
    expect(github.calls("apps/get-authenticated")).toHaveLength(1);
    expect(github.calls("users/get-by-username").map((r) => r.path)).toEqual(["/users/autogen-test%5Bbot%5D"]);
    expect(ACTIONS_BOT).toEqual({
      name: "github-actions[bot]",
      email: "41898282+github-actions[bot]@users.noreply.github.com",
    });
    expect(() => botIdentity({ slug: "bad slug", id: 1 })).toThrow(/not a GitHub App slug/);
  });
});
