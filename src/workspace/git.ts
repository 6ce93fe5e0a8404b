// Git through simple-git with the habits untrusted input demands: a timeout on every
// call, no prompts, a minimal environment, paths only ever after `--`, and a fixed set
// of configuration that no repository (nor a test that wrote to one) can override, so
// git never runs a program the repository chose: no hooks, no fsmonitor, no editor,
// pager, ssh command or credential helper, no system or global configuration.
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { simpleGit, type SimpleGit } from "simple-git";

const BOT_IDENTITY = ["-c", "user.name=autogen-bot", "-c", "user.email=autogen-bot@users.noreply.github.com"];

/**
 * Command-line scope (GIT_CONFIG_COUNT) outranks every file git reads, so these hold
 * whatever a repository's config, a worktree's config or an include says.
 */
export const SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.sshCommand", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.askPass", "false"],
  ["credential.helper", ""],
  ["core.untrackedCache", "false"],
  ["core.attributesFile", "/dev/null"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["push.gpgSign", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["protocol.allow", "never"],
  ["protocol.https.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.file.allow", "always"],
];

export type GitCredentials = { username: string; password: string };

export type GitOptions = {
  timeoutMs?: number;
  signal?: AbortSignal;
  credentials?: GitCredentials;
  /** A private index file (GIT_INDEX_FILE), so a snapshot never touches the worktree's index. */
  indexFile?: string;
  /** The git dir, named rather than discovered: a worktree's `.git` file is not trusted after tests ran there. */
  gitDir?: string;
  /** The work tree that goes with `gitDir`. */
  workTree?: string;
};

/** The environment every git we run gets: minimal, no prompts, no system or global configuration, our fixed configuration on top. */
export function safeGitEnv(
  options: Pick<GitOptions, "credentials" | "indexFile" | "gitDir" | "workTree"> = {},
): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    // Only these transports: no ext::, no ssh commands smuggled in through a URL.
    GIT_ALLOW_PROTOCOL: "https:http:file",
  };
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  if (options.gitDir) env.GIT_DIR = options.gitDir;
  if (options.workTree) env.GIT_WORK_TREE = options.workTree;
  const config: Array<readonly [string, string]> = [...SAFE_CONFIG];
  if (options.credentials) {
    // Per-command config through the environment: not on the command line, not on disk.
    const { username, password } = options.credentials;
    config.push([
      "http.extraHeader",
      `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
    ]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

/** A simple-git client for one directory: minimal environment, no prompts, https/file transports only, no repository-chosen programs. */
export function git(baseDir: string, options: GitOptions = {}): SimpleGit {
  const env = safeGitEnv(options);
  return simpleGit({
    baseDir,
    timeout: { block: options.timeoutMs ?? 60_000 },
    ...(options.signal ? { abort: options.signal } : {}),
    // GIT_CONFIG_COUNT carries only our own constants above (and the token header), never outside input.
    // simple-git guards these keys against values from outside; ours are the constants
    // above, which switch the programs off (GIT_CONFIG_GLOBAL points at /dev/null).
    unsafe: {
      allowUnsafeConfigEnvCount: true,
      allowUnsafeConfigPaths: true,
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeSshCommand: true,
      allowUnsafePager: true,
      allowUnsafeEditor: true,
      allowUnsafeAskPass: true,
      allowUnsafeCredentialHelper: true,
      allowUnsafeProtocolOverride: true,
    },
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

/** What the bot learned about a worktree when it made it, before any test ran in it. */
export type WorktreeRecord = { commonDir: string; gitDir: string; sha: string };

const worktrees = new Map<string, WorktreeRecord>();

export async function addWorktree(repo: string, path: string, ref = "HEAD"): Promise<WorktreeRecord> {
  const common = await commonGitDir(repo);
  const sha = (await git(repo).raw(["rev-parse", "--verify", "--end-of-options", `${ref}^{commit}`])).trim();
  await git(repo).raw(["worktree", "add", "--detach", "--", path, sha]);
  const pointer = /^gitdir: (.+)$/m.exec(readFileSync(join(path, ".git"), "utf8"))?.[1]?.trim();
  if (!pointer) throw new Error(`git did not write a .git file in the new worktree ${path}`);
  const record = { commonDir: common, gitDir: isAbsolute(pointer) ? pointer : resolve(path, pointer), sha };
  worktrees.set(resolve(path), record);
  return record;
}

export function rememberWorktree(path: string, record: WorktreeRecord): void {
  worktrees.set(resolve(path), record);
}

export function forgetWorktree(path: string): void {
  worktrees.delete(resolve(path));
}

export function worktreeRecord(path: string): WorktreeRecord | undefined {
  return worktrees.get(resolve(path));
}

export async function removeWorktree(repo: string, path: string): Promise<void> {
  worktrees.delete(resolve(path));
  await git(repo).raw(["worktree", "remove", "--force", "--", path]);
}

/** A branch name not yet taken: `base`, then `base-2`, `base-3`, ... */
export async function freeBranchName(repo: string, base: string): Promise<string> {
  const existing = new Set((await git(repo).branchLocal()).all);
  if (!existing.has(base)) return base;
  for (let i = 2; ; i++) if (!existing.has(`${base}-${i}`)) return `${base}-${i}`;
}

export { BOT_IDENTITY };

export async function gitDir(repo: string): Promise<string> {
  return (await git(repo).revparse(["--absolute-git-dir"])).trim();
}

export async function commonGitDir(repo: string): Promise<string> {
  return resolve(repo, (await git(repo).revparse(["--git-common-dir"])).trim());
}
