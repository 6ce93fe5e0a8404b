// GitHub's Git Data API (blobs, trees, commits, refs) behind a small port: how the bot
// writes to a repository. Nothing is pushed with git: commits GitHub creates through this
// API for a GitHub App (or GITHUB_TOKEN) are signed by GitHub and shown as Verified (see
// publish-commit.ts for the rule and how it is met).
export type TreeEntry = {
  path: string;
  mode: "100644" | "100755" | "120000" | "160000" | "040000";
  type: "blob" | "commit" | "tree";
  sha: string | null;
};
export type CreatedCommit = {
  sha: string;
  tree: string;
  author: { name: string; email: string };
  committer: { name: string; email: string };
  verified: boolean | undefined;
};

export type GitDataApi = {
  createBlob(owner: string, repo: string, content: Buffer): Promise<string>;
  createTree(owner: string, repo: string, baseTree: string, tree: TreeEntry[]): Promise<string>;
  /** Author and committer are left out: GitHub records the authenticated App's bot and signs the commit. */
  createCommit(
    owner: string,
    repo: string,
    commit: { message: string; tree: string; parents: string[] },
  ): Promise<CreatedCommit>;
  /** The commit a branch points at, or undefined when there is no such branch. */
  getBranch(owner: string, repo: string, branch: string): Promise<string | undefined>;
  /** Fails with a status 422 when the branch exists. */
  createBranch(owner: string, repo: string, branch: string, sha: string): Promise<void>;
  /** Without `force`, GitHub refuses (422) an update that is not a fast-forward. */
  updateBranch(owner: string, repo: string, branch: string, sha: string, force: boolean): Promise<void>;
  deleteBranch(owner: string, repo: string, branch: string): Promise<void>;
  /** Branches whose name starts with `prefix`. */
  listBranches(owner: string, repo: string, prefix: string): Promise<string[]>;
};

type Ref = { ref: string; object: { sha: string } };

/** The slice of Octokit this uses (the installation's, or the action's GITHUB_TOKEN client). */
export type GitOctokitLike = {
  rest: {
    git: {
      createBlob(p: {
        owner: string;
        repo: string;
        content: string;
        encoding: "base64";
      }): Promise<{ data: { sha: string } }>;
      createTree(p: {
        owner: string;
        repo: string;
        base_tree: string;
        tree: TreeEntry[];
      }): Promise<{ data: { sha: string } }>;
      createCommit(p: {
        owner: string;
        repo: string;
        message: string;
        tree: string;
        parents: string[];
      }): Promise<{ data: unknown }>;
      getRef(p: { owner: string; repo: string; ref: string }): Promise<{ data: unknown }>;
      createRef(p: { owner: string; repo: string; ref: string; sha: string }): Promise<unknown>;
      updateRef(p: { owner: string; repo: string; ref: string; sha: string; force: boolean }): Promise<unknown>;
      deleteRef(p: { owner: string; repo: string; ref: string }): Promise<unknown>;
      listMatchingRefs(p: { owner: string; repo: string; ref: string }): Promise<{ data: unknown }>;
    };
  };
};

const status = (error: unknown) => (error as { status?: number }).status;

export function octokitGitData(octokit: GitOctokitLike): GitDataApi {
  const git = octokit.rest.git;
  return {
    async createBlob(owner, repo, content) {
      return (await git.createBlob({ owner, repo, content: content.toString("base64"), encoding: "base64" })).data.sha;
    },
    async createTree(owner, repo, baseTree, tree) {
      return (await git.createTree({ owner, repo, base_tree: baseTree, tree })).data.sha;
    },
    async createCommit(owner, repo, commit) {
      const data = (await git.createCommit({ owner, repo, ...commit })).data as {
        sha: string;
        tree: { sha: string };
        author: { name: string; email: string };
        committer: { name: string; email: string };
        verification?: { verified?: boolean };
      };
      return {
        sha: data.sha,
        tree: data.tree.sha,
        author: data.author,
        committer: data.committer,
        verified: data.verification?.verified,
      };
    },
    async getBranch(owner, repo, branch) {
      try {
        const data = (await git.getRef({ owner, repo, ref: `heads/${branch}` })).data as Ref | Ref[];
        // GitHub answers a prefix of several refs with a list: only an exact match is the branch.
        const refs = Array.isArray(data) ? data : [data];
        return refs.find((r) => r.ref === `refs/heads/${branch}`)?.object.sha;
      } catch (error) {
        if (status(error) === 404) return undefined;
        throw error;
      }
    },
    async createBranch(owner, repo, branch, sha) {
      await git.createRef({ owner, repo, ref: `refs/heads/${branch}`, sha });
    },
    async updateBranch(owner, repo, branch, sha, force) {
      await git.updateRef({ owner, repo, ref: `heads/${branch}`, sha, force });
    },
    async deleteBranch(owner, repo, branch) {
      await git.deleteRef({ owner, repo, ref: `heads/${branch}` });
    },
    async listBranches(owner, repo, prefix) {
      const data = (await git.listMatchingRefs({ owner, repo, ref: `heads/${prefix}` })).data as Ref[];
      return data.map((r) => r.ref.replace(/^refs\/heads\//, "")).filter((b) => b.startsWith(prefix));
    },
  };
}
