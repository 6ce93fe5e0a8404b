// Every GitHub side effect the bot makes, behind one port. The Octokit backend posts
// nothing that has not passed the secret scrubber, and no mention that would notify.
import { neutralizeMentions } from "../secrets/neutralize-mentions.ts";
import type { Scrubber } from "../secrets/scrub-secrets.ts";
import { octokitGitData, type GitDataApi, type GitOctokitLike } from "./git-data.ts";
import { UnreadableFileError } from "./unreadable-file-error.ts";

export type Permission = "admin" | "maintain" | "write" | "triage" | "read" | "none";
export type PullRef = { number: number; url: string; draft: boolean };

export type Forge = {
  permission(owner: string, repo: string, username: string): Promise<Permission>;
  repository(owner: string, repo: string): Promise<{ defaultBranch: string; cloneUrl: string }>;
  issue(owner: string, repo: string, number: number): Promise<{ title: string; body: string }>;
  /** A file's text; undefined when there is none; UnreadableFileError when something else is there (a directory, a link, a submodule) or it is not UTF-8 text. */
  readFile(owner: string, repo: string, path: string, ref: string): Promise<string | undefined>;
  listComments(owner: string, repo: string, number: number): Promise<Array<{ id: number; body: string }>>;
  createComment(owner: string, repo: string, number: number, body: string): Promise<number>;
  updateComment(owner: string, repo: string, commentId: number, body: string): Promise<void>;
  react(owner: string, repo: string, number: number, content: "eyes" | "rocket"): Promise<void>;
  findOpenPull(owner: string, repo: string, branch: string): Promise<PullRef | undefined>;
  createPull(
    owner: string,
    repo: string,
    pull: { title: string; head: string; base: string; body: string; draft: boolean },
  ): Promise<PullRef>;
  updatePull(owner: string, repo: string, number: number, pull: { title: string; body: string }): Promise<void>;
  /** An installation token for cloning and fetching (private repositories); never stored, never used to push. */
  cloneToken(): Promise<string>;
  /** The Git Data API: how the bot writes commits and branches (as the App's bot, so GitHub signs them). */
  git: GitDataApi;
};

/** The slice of Octokit the forge uses (Probot's context.octokit / app.auth(id)). */
export type OctokitLike = {
  rest: {
    repos: {
      getCollaboratorPermissionLevel(p: {
        owner: string;
        repo: string;
        username: string;
      }): Promise<{ data: { permission: string; role_name?: string } }>;
      get(p: { owner: string; repo: string }): Promise<{ data: { default_branch: string; clone_url: string } }>;
      getContent(p: { owner: string; repo: string; path: string; ref: string }): Promise<{ data: unknown }>;
    };
    issues: {
      get(p: {
        owner: string;
        repo: string;
        issue_number: number;
      }): Promise<{ data: { title: string; body?: string | null } }>;
      listComments(p: {
        owner: string;
        repo: string;
        issue_number: number;
        per_page: number;
        page: number;
      }): Promise<{ data: Array<{ id: number; body?: string }> }>;
      createComment(p: {
        owner: string;
        repo: string;
        issue_number: number;
        body: string;
      }): Promise<{ data: { id: number } }>;
      updateComment(p: { owner: string; repo: string; comment_id: number; body: string }): Promise<unknown>;
    };
    reactions: {
      createForIssue(p: {
        owner: string;
        repo: string;
        issue_number: number;
        content: "eyes" | "rocket";
      }): Promise<unknown>;
    };
    pulls: {
      list(p: {
        owner: string;
        repo: string;
        head: string;
        state: "open";
        per_page: number;
      }): Promise<{ data: Array<{ number: number; html_url: string; draft?: boolean }> }>;
      create(p: {
        owner: string;
        repo: string;
        title: string;
        head: string;
        base: string;
        body: string;
        draft: boolean;
      }): Promise<{ data: { number: number; html_url: string; draft?: boolean } }>;
      update(p: { owner: string; repo: string; pull_number: number; title: string; body: string }): Promise<unknown>;
    };
  };
  auth(options: { type: "installation" }): Promise<unknown>;
} & GitOctokitLike;

/** GitHub's limit for issue, comment and PR bodies. */
export const MAX_BODY = 65_536;

export function octokitForge(octokit: OctokitLike, scrub: Scrubber): Forge {
  const clean = (body: string) => {
    const text = neutralizeMentions(scrub(body));
    return text.length <= MAX_BODY
      ? text
      : `${text.slice(0, MAX_BODY - 200)}\n\n… (truncated: GitHub limits a body to ${MAX_BODY} characters)`;
  };
  return {
    async permission(owner, repo, username) {
      try {
        const { data } = await octokit.rest.repos.getCollaboratorPermissionLevel({ owner, repo, username });
        const role = data.role_name ?? data.permission;
        return (["admin", "maintain", "write", "triage", "read"].includes(role) ? role : data.permission) as Permission;
      } catch (error) {
        if ((error as { status?: number }).status === 404) return "none";
        throw error;
      }
    },
    async repository(owner, repo) {
      const { data } = await octokit.rest.repos.get({ owner, repo });
      return { defaultBranch: data.default_branch, cloneUrl: data.clone_url };
    },
    async issue(owner, repo, number) {
      const { data } = await octokit.rest.issues.get({ owner, repo, issue_number: number });
      return { title: data.title, body: data.body ?? "" };
    },
    async readFile(owner, repo, path, ref) {
      let data: unknown;
      try {
        ({ data } = await octokit.rest.repos.getContent({ owner, repo, path, ref }));
      } catch (error) {
        const status = (error as { status?: number }).status;
        if (status === 404) return undefined;
        // 403 "too_large" (over 100 MB) and the like: the file's fault, not an outage.
        if (status !== undefined && status >= 400 && status < 500 && status !== 429)
          throw new UnreadableFileError(path, `GitHub answered ${status}`);
        throw error;
      }
      return fileText(path, data);
    },
    async listComments(owner, repo, number) {
      const out: Array<{ id: number; body: string }> = [];
      for (let page = 1; page <= 20; page++) {
        const { data } = await octokit.rest.issues.listComments({
          owner,
          repo,
          issue_number: number,
          per_page: 100,
          page,
        });
        out.push(...data.map((c) => ({ id: c.id, body: c.body ?? "" })));
        if (data.length < 100) break;
      }
      return out;
    },
    async createComment(owner, repo, number, body) {
      const { data } = await octokit.rest.issues.createComment({
        owner,
        repo,
        issue_number: number,
        body: clean(body),
      });
      return data.id;
    },
    async updateComment(owner, repo, commentId, body) {
      await octokit.rest.issues.updateComment({ owner, repo, comment_id: commentId, body: clean(body) });
    },
    async react(owner, repo, number, content) {
      await octokit.rest.reactions.createForIssue({ owner, repo, issue_number: number, content });
    },
    async findOpenPull(owner, repo, branch) {
      const { data } = await octokit.rest.pulls.list({
        owner,
        repo,
        head: `${owner}:${branch}`,
        state: "open",
        per_page: 1,
      });
      const pull = data[0];
      return pull ? { number: pull.number, url: pull.html_url, draft: pull.draft ?? false } : undefined;
    },
    async createPull(owner, repo, pull) {
      const { data } = await octokit.rest.pulls.create({
        owner,
        repo,
        ...pull,
        title: clean(pull.title),
        body: clean(pull.body),
      });
      return { number: data.number, url: data.html_url, draft: data.draft ?? pull.draft };
    },
    async updatePull(owner, repo, number, pull) {
      await octokit.rest.pulls.update({
        owner,
        repo,
        pull_number: number,
        title: clean(pull.title),
        body: clean(pull.body),
      });
    },
    git: octokitGitData(octokit),
    async cloneToken() {
      const auth = (await octokit.auth({ type: "installation" })) as { token?: string };
      if (!auth.token) throw new Error("the installation token could not be obtained");
      // Minted for this job: from now on its encoded forms (the Basic header git sends) are scrubbed too.
      scrub.add?.(auth.token);
      return auth.token;
    },
  };
}

/** GitHub's contents API answer for one path as text. (GitHub already follows a link to a file inside the repository.) */
function fileText(path: string, data: unknown): string {
  if (Array.isArray(data)) throw new UnreadableFileError(path, "it is a directory, not a file");
  const file = data as { type?: string; content?: string; encoding?: string; size?: number; target?: string };
  if (file.type === "symlink")
    throw new UnreadableFileError(path, "it is a symbolic link that does not lead to a file in the repository");
  if (file.type !== "file")
    throw new UnreadableFileError(path, `it is a ${file.type ?? "thing"} (a submodule?), not a file`);
  // Over 1 MB the API leaves the content out ("encoding": "none").
  if (typeof file.content !== "string" || file.encoding === "none")
    throw new UnreadableFileError(path, `it is too large (${file.size ?? "?"} bytes)`);
  const bytes = Buffer.from(file.content, file.encoding === "base64" ? "base64" : "utf8");
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new UnreadableFileError(path, "it is not UTF-8 text");
  }
}
