// Repository workspaces: one bare mirror per repository (fetched, never worked in), one
// git worktree per job or candidate, a fast reset between candidates, clean removal.
// Every git call has a total timeout and an abort signal; credentials are handed to the
// one command that needs them through the environment, never written to .git/config;
// URLs and refs from outside never become options.
import { existsSync } from "node:fs";
import { mkdir, readFile, rm } from "node:fs/promises";
import { createHash } from "node:crypto";
import { isAbsolute, join, resolve } from "node:path";
import type { GitCredentials } from "./git-env.ts";
import { forgetWorktree, rememberWorktree } from "./git.ts";
import { runGit, type RunGitOptions } from "./run-git.ts";

export class GitWorkspaceError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GitWorkspaceError";
  }
}

export type { GitCredentials };

export type RepoCacheOptions = { root: string; timeoutMs?: number; signal?: AbortSignal };

const ALLOWED_URL = /^(https:\/\/|http:\/\/(127\.0\.0\.1|localhost)(:\d+)?\/|file:\/\/\/|\/)/;

export class RepoCache {
  private readonly root: string;
  private readonly timeoutMs: number;
  private readonly signal: AbortSignal | undefined;

  constructor(options: RepoCacheOptions) {
    this.root = options.root;
    this.timeoutMs = options.timeoutMs ?? 120_000;
    this.signal = options.signal;
  }

  /** The bare mirror of `url`, cloned on first use and fetched after. */
  async mirror(url: string, credentials?: GitCredentials): Promise<string> {
    if (!ALLOWED_URL.test(url) || url.startsWith("-"))
      throw new GitWorkspaceError(
        `refusing repository URL ${JSON.stringify(url)}: only https URLs (and local paths) are supported`,
      );
    const path = join(this.root, "mirrors", `${createHash("sha256").update(url).digest("hex").slice(0, 24)}.git`);
    if (existsSync(path)) {
      await this.run(path, ["fetch", "--prune", "--quiet", "origin"], `fetch ${redact(url)}`, credentials);
    } else {
      await mkdir(join(this.root, "mirrors"), { recursive: true });
      try {
        await this.run(
          this.root,
          ["clone", "--mirror", "--quiet", "--", url, path],
          `clone ${redact(url)}`,
          credentials,
        );
      } catch (error) {
        await rm(path, { recursive: true, force: true });
        throw error;
      }
    }
    return path;
  }

  /** A detached worktree of `ref` (a commit sha or a ref name, resolved first) at a fresh path. */
  async worktree(mirror: string, ref: string, name: string): Promise<Worktree> {
    if (!/^[\w./-]+$/.test(ref) || ref.startsWith("-"))
      throw new GitWorkspaceError(`refusing ref ${JSON.stringify(ref)}`);
    if (!/^[\w-]+$/.test(name)) throw new GitWorkspaceError(`refusing worktree name ${JSON.stringify(name)}`);
    const sha = (
      await this.run(
        mirror,
        ["rev-parse", "--verify", "--quiet", "--end-of-options", `${ref}^{commit}`],
        `resolve ${ref}`,
        undefined,
        // Exit 1 and no output: no such commit, said below.
        { okExitCodes: [0, 1] },
      )
    ).trim();
    if (!/^[0-9a-f]{40,64}$/.test(sha))
      throw new GitWorkspaceError(`resolve ${ref} failed: no such commit or ref in the repository`);
    const path = join(this.root, "worktrees", name);
    await rm(path, { recursive: true, force: true });
    await mkdir(join(this.root, "worktrees"), { recursive: true });
    await this.run(mirror, ["worktree", "add", "--detach", "--quiet", path, sha], `create worktree ${name}`);
    // Named now, before any test runs there: later git calls never read the worktree's `.git` file again.
    const pointer = /^gitdir: (.+)$/m.exec(await readFile(join(path, ".git"), "utf8"))?.[1]?.trim();
    if (!pointer) throw new GitWorkspaceError(`create worktree ${name} failed: git wrote no .git file`);
    const gitDir = isAbsolute(pointer) ? pointer : resolve(path, pointer);
    rememberWorktree(path, { commonDir: mirror, gitDir, sha });
    return new Worktree(path, sha, mirror, this, gitDir);
  }

  /** Runs one git command with a total timeout; credentials go to this command only. */
  async run(
    cwd: string,
    args: string[],
    what: string,
    credentials?: GitCredentials,
    place?: Pick<RunGitOptions, "gitDir" | "workTree" | "okExitCodes">,
  ): Promise<string> {
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const onAbort = () => controller.abort();
    this.signal?.addEventListener("abort", onAbort, { once: true });
    try {
      return await runGit(args, {
        cwd,
        signal: controller.signal,
        // The timer above bounds the call, so its message is the one seen.
        timeoutMs: 0,
        ...(credentials ? { credentials } : {}),
        ...(place ?? {}),
      });
    } catch (error) {
      if (controller.signal.aborted) {
        throw new GitWorkspaceError(
          this.signal?.aborted
            ? `${what} was cancelled`
            : `${what} timed out after ${Math.round(this.timeoutMs / 1000)} s (the remote did not answer)`,
        );
      }
      const message = (error as Error).message.split("\n").filter(Boolean).slice(0, 3).join(" ");
      throw new GitWorkspaceError(
        `${what} failed: ${credentials ? message.replaceAll(credentials.password, "***") : message}`,
      );
    } finally {
      clearTimeout(timer);
      this.signal?.removeEventListener("abort", onAbort);
    }
  }
}

export class Worktree {
  readonly path: string;
  readonly sha: string;
  private readonly mirror: string;
  private readonly cache: RepoCache;
  /** The worktree's admin dir in the mirror, learned when it was made. */
  private readonly gitDir: string;

  constructor(path: string, sha: string, mirror: string, cache: RepoCache, gitDir: string) {
    this.path = path;
    this.sha = sha;
    this.mirror = mirror;
    this.cache = cache;
    this.gitDir = gitDir;
  }

  /** Back to the checked-out commit: tracked files restored, untracked ones removed (ignored build output is kept). */
  async reset(): Promise<void> {
    const place = { gitDir: this.gitDir, workTree: this.path };
    await this.cache.run(this.path, ["reset", "--hard", "--quiet", this.sha], "reset worktree", undefined, place);
    // What the setup command installed stays (node_modules may not be in .gitignore).
    await this.cache.run(this.path, ["clean", "-fdq", "-e", "/node_modules"], "clean worktree", undefined, place);
  }

  async remove(): Promise<void> {
    forgetWorktree(this.path);
    await this.cache
      .run(this.mirror, ["worktree", "remove", "--force", this.path], "remove worktree")
      .catch(() => undefined);
    await rm(this.path, { recursive: true, force: true });
    await this.cache.run(this.mirror, ["worktree", "prune"], "prune worktrees").catch(() => undefined);
  }
}

function redact(url: string): string {
  return url.replace(/\/\/[^@/]+@/, "//***@");
}
