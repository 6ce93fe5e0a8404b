// Git through simple-git with the habits untrusted input demands: a timeout on every
// call, no prompts, a minimal environment, and paths only ever after `--`.
import { simpleGit, type SimpleGit } from "simple-git";

const BOT_IDENTITY = ["-c", "user.name=autogen-bot", "-c", "user.email=autogen-bot@users.noreply.github.com"];

export type GitCredentials = { username: string; password: string };

export type GitOptions = { timeoutMs?: number; signal?: AbortSignal; credentials?: GitCredentials; /** A private index file (GIT_INDEX_FILE), so a snapshot never touches the worktree's index. */ indexFile?: string };

/** A simple-git client for one directory: minimal environment, no prompts, https/file transports only. */
export function git(baseDir: string, options: GitOptions = {}): SimpleGit {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    // Only these transports: no ext::, no ssh commands smuggled in through a URL.
    GIT_ALLOW_PROTOCOL: "https:http:file",
  };
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  if (options.credentials) {
    // Per-command config through the environment: not on the command line, not on disk.
    const { username, password } = options.credentials;
    env.GIT_CONFIG_COUNT = "1";
    env.GIT_CONFIG_KEY_0 = "http.extraHeader";
    env.GIT_CONFIG_VALUE_0 = `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`;
  }
  // simple-git guards variables that change git's behaviour; these are ours, on purpose.
  return simpleGit({
    baseDir,
    timeout: { block: options.timeoutMs ?? 60_000 },
    ...(options.signal ? { abort: options.signal } : {}),
    // GIT_CONFIG_COUNT carries only our own constant key (http.extraHeader), never outside input.
    ...(options.credentials ? { unsafe: { allowUnsafeConfigEnvCount: true } } : {}),
    allowEnvironment: Object.keys(env).filter((k) => k.startsWith("GIT_")),
  }).env(env);
}

export async function isGitRepository(dir: string): Promise<boolean> {
  try {
    return (await git(dir).revparse(["--is-inside-work-tree"])).trim() === "true";
  } catch {
    return false;
  }
}

export async function isDirty(dir: string): Promise<boolean> {
  return (await git(dir).status()).files.length > 0;
}

export async function addWorktree(repo: string, path: string, ref = "HEAD"): Promise<void> {
  await git(repo).raw(["worktree", "add", "--detach", path, ref]);
}

export async function removeWorktree(repo: string, path: string): Promise<void> {
  await git(repo).raw(["worktree", "remove", "--force", path]);
}

/** A branch name not yet taken: `base`, then `base-2`, `base-3`, ... */
export async function freeBranchName(repo: string, base: string): Promise<string> {
  const existing = new Set((await git(repo).branchLocal()).all);
  if (!existing.has(base)) return base;
  for (let i = 2; ; i++) if (!existing.has(`${base}-${i}`)) return `${base}-${i}`;
}

export async function commitOnNewBranch(worktree: string, branch: string, files: string[], message: string): Promise<string> {
  const g = git(worktree);
  await g.raw(["switch", "--create", branch]);
  await g.raw(["add", "--", ...files]);
  await g.raw([...BOT_IDENTITY, "commit", "--no-verify", "--message", message]);
  return (await g.revparse(["HEAD"])).trim();
}

export async function gitDir(repo: string): Promise<string> {
  return (await git(repo).revparse(["--absolute-git-dir"])).trim();
}
