// Publishing a commit made in the bot's mirror through GitHub's Git Data API instead of
// `git push`: the files it changes against its (single) parent are uploaded as blobs
// (read from the mirror's object store, so nothing in a worktree is read here and no
// symbolic link is followed: a link is a blob holding its target, mode 120000; modes
// and deletions are tree entries), a tree is made on the parent's tree, the commit is
// re-created by GitHub, and the branch is moved.
//
// Why Verified: GitHub's "About commit signature verification" (Signature verification
// for bots) says commits a GitHub App (or GITHUB_TOKEN) creates through the API are
// signed by GitHub only when the request is authenticated as the App or bot and carries
// no custom author, committer or signature. So createCommit sends none of them: GitHub
// records the authenticated bot itself, `<slug>[bot] <<id>+<slug>[bot]@users.noreply.github.com>`,
// and this checks that what it recorded is the expected identity before the branch moves.
//
// The lease (never silently clobber a branch someone else moved): the branch is read
// before anything is uploaded. Absent: it is created (GitHub refuses if it appeared
// since). At our commit's parent: a non-forced update, which GitHub refuses unless it is
// a fast-forward, so a commit pushed meanwhile is kept. Elsewhere (our own earlier attempt,
// replaced): read again right before a forced update and refused if it moved. The REST
// API has no compare-and-swap for a forced update, so only that last round trip is unguarded.
import { runGitBytes } from "../workspace/run-git.ts";
import type { BotIdentity } from "./bot-identity.ts";
import type { GitDataApi, TreeEntry } from "./git-data.ts";

/** Where, and as whom, the bot publishes. */
export type GitTarget = { api: GitDataApi; owner: string; repo: string; identity: BotIdentity };

export type PublishRequest = {
  /** The git dir holding the commit (the job's mirror). */
  gitDir: string;
  commit: string;
  branch: string;
  /** Overwrite the branch whatever it holds (the verifier's throwaway branches); otherwise the lease above. */
  force?: boolean;
};

export class GitDataError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitDataError";
  }
}

/** The branch changed under us: nothing was overwritten. */
export class BranchMovedError extends GitDataError {
  constructor(message: string) {
    super(message);
    this.name = "BranchMovedError";
  }
}

const SHA = /^[0-9a-f]{40,64}$/;

function gitOut(gitDir: string, args: string[]): Promise<Buffer> {
  return runGitBytes(args, { gitDir });
}

type LocalCommit = { tree: string; parent: string; message: string };

async function readCommit(gitDir: string, sha: string): Promise<LocalCommit> {
  const text = (await gitOut(gitDir, ["cat-file", "commit", sha])).toString("utf8");
  const split = text.indexOf("\n\n");
  const headers = (split < 0 ? text : text.slice(0, split)).split("\n");
  const tree = headers.find((h) => h.startsWith("tree "))?.slice(5);
  const parents = headers.filter((h) => h.startsWith("parent ")).map((h) => h.slice(7));
  if (!tree || parents.length !== 1 || !parents[0])
    throw new GitDataError(`refusing to publish ${sha}: it must be a commit with exactly one parent`);
  // git ends the message with a newline; GitHub's own commits keep what is sent.
  return { tree, parent: parents[0], message: split < 0 ? "" : text.slice(split + 2) };
}

/** GitHub refuses files over 100 MiB; such a change is refused here, before anything is uploaded. */
export const MAX_FILE_BYTES = 100 * 1024 * 1024;

/** The tree entries that turn the parent's tree into the commit's (checked first, then blobs uploaded). */
async function changes(target: GitTarget, gitDir: string, parent: string, commit: string): Promise<TreeEntry[]> {
  const raw = (
    await gitOut(gitDir, ["diff-tree", "-r", "-z", "--no-renames", "--raw", "--no-ext-diff", parent, commit, "--"])
  ).toString("utf8");
  const fields = raw.split("\0");
  const entries: TreeEntry[] = [];
  const blobs: Array<{ path: string; sha: string }> = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const [oldMode, newMode, , newSha, kind] = (fields[i] ?? "").replace(/^:/, "").split(" ");
    const path = fields[i + 1] ?? "";
    if (kind === "D") {
      entries.push({
        path,
        mode: (oldMode ?? "100644") as TreeEntry["mode"],
        type: oldMode === "160000" ? "commit" : "blob",
        sha: null,
      });
      continue;
    }
    if (newMode === "160000") {
      entries.push({ path, mode: "160000", type: "commit", sha: newSha ?? null });
      continue;
    }
    if (newMode !== "100644" && newMode !== "100755" && newMode !== "120000")
      throw new GitDataError(`refusing to publish ${path}: unexpected mode ${String(newMode)}`);
    if (!newSha || !SHA.test(newSha)) throw new GitDataError(`refusing to publish ${path}: no blob id`);
    const size = Number((await gitOut(gitDir, ["cat-file", "-s", newSha])).toString("utf8").trim());
    if (!(size <= MAX_FILE_BYTES))
      throw new GitDataError(
        `refusing to publish ${path}: ${size} bytes, larger than GitHub's 100 MiB limit for a file`,
      );
    entries.push({ path, mode: newMode, type: "blob", sha: newSha });
    blobs.push({ path, sha: newSha });
  }
  for (const { path, sha } of blobs) {
    const uploaded = await target.api.createBlob(
      target.owner,
      target.repo,
      await gitOut(gitDir, ["cat-file", "blob", sha]),
    );
    if (uploaded !== sha)
      throw new GitDataError(`GitHub stored ${path} as ${uploaded}, not ${sha}: the upload was altered`);
  }
  return entries;
}

/** Re-creates `commit` on GitHub as the bot and points `branch` at it; returns GitHub's commit id. */
export async function publishCommit(target: GitTarget, request: PublishRequest): Promise<string> {
  const { owner, repo, api } = target;
  if (!SHA.test(request.commit))
    throw new GitDataError(`refusing to publish ${JSON.stringify(request.commit)}: not a commit id`);
  // A commit GitHub already has (fetched into the mirror: the verifier tests the base or head as it is) only needs the branch.
  const known =
    (await gitOut(request.gitDir, ["for-each-ref", "--count=1", "--format=%(refname)", "--contains", request.commit]))
      .toString("utf8")
      .trim() !== "";
  if (known) {
    await moveBranch(target, request, await api.getBranch(owner, repo, request.branch), undefined, request.commit);
    return request.commit;
  }
  const local = await readCommit(request.gitDir, request.commit);
  const seen = await api.getBranch(owner, repo, request.branch);
  const entries = await changes(target, request.gitDir, local.parent, request.commit);
  const baseTree = (
    await gitOut(request.gitDir, ["rev-parse", "--verify", "--end-of-options", `${local.parent}^{tree}`])
  )
    .toString("utf8")
    .trim();
  const tree = entries.length === 0 ? baseTree : await api.createTree(owner, repo, baseTree, entries);
  if (tree !== local.tree)
    throw new GitDataError(`GitHub built the tree ${tree}, not ${local.tree}: refusing to publish a different change`);
  const created = await api.createCommit(owner, repo, { message: local.message, tree, parents: [local.parent] });
  for (const [role, who] of [
    ["author", created.author],
    ["committer", created.committer],
  ] as const)
    if (who.name !== target.identity.name || who.email !== target.identity.email)
      throw new GitDataError(
        `GitHub recorded the ${role} of the new commit as ${who.name} <${who.email}>, not ${target.identity.name} <${target.identity.email}>: the token is not the App's installation token (or GITHUB_TOKEN); the branch was not changed`,
      );
  await moveBranch(target, request, seen, local.parent, created.sha);
  return created.sha;
}

const refused = (error: unknown) => [409, 422].includes((error as { status?: number }).status ?? 0);

async function moveBranch(
  target: GitTarget,
  request: PublishRequest,
  seen: string | undefined,
  parent: string | undefined,
  sha: string,
): Promise<void> {
  const { owner, repo, api } = target;
  const { branch } = request;
  const moved = (why: string) =>
    new BranchMovedError(
      `${branch} changed on GitHub while the bot was publishing (${why}); nothing was overwritten: run the job again to build on what is there now`,
    );
  if (seen === undefined) {
    try {
      await api.createBranch(owner, repo, branch, sha);
    } catch (error) {
      if (!refused(error)) throw error;
      if (!request.force) throw moved("it was created meanwhile");
      await api.updateBranch(owner, repo, branch, sha, true);
    }
    return;
  }
  if (request.force) return api.updateBranch(owner, repo, branch, sha, true);
  if (seen === parent) {
    try {
      await api.updateBranch(owner, repo, branch, sha, false);
    } catch (error) {
      if (refused(error)) throw moved(`it is no longer at ${seen.slice(0, 7)}`);
      throw error;
    }
    return;
  }
  const now = await api.getBranch(owner, repo, branch);
  if (now !== seen) throw moved(`it was at ${seen.slice(0, 7)}, now ${now?.slice(0, 7) ?? "deleted"}`);
  await api.updateBranch(owner, repo, branch, sha, true);
}

/** Deletes a branch (the verifier's, after its run). */
export async function deleteBranch(target: GitTarget, branch: string): Promise<void> {
  await target.api.deleteBranch(target.owner, target.repo, branch);
}

/** Branches whose name starts with `prefix`. */
export async function listBranches(target: GitTarget, prefix: string): Promise<string[]> {
  return target.api.listBranches(target.owner, target.repo, prefix);
}
