// The bot's own git chores on a repository: is it one, is it dirty, a worktree made
// from it (and what the bot learned about it then), a free branch name. Every call
// goes through runGit (run-git.ts): safe environment, paths only ever after `--`.
import { readFileSync } from "node:fs";
import { isAbsolute, join, resolve } from "node:path";
import { runGit } from "./run-git.ts";

const BOT_IDENTITY = ["-c", "user.name=autogen-bot", "-c", "user.email=autogen-bot@users.noreply.github.com"];

export async function isGitRepository(dir: string): Promise<boolean> {
  try {
    return (await runGit(["rev-parse", "--is-inside-work-tree"], { cwd: dir })).trim() === "true";
  } catch {
    return false;
  }
}

export async function isDirty(dir: string): Promise<boolean> {
  return (await runGit(["status", "--porcelain", "-u", "-z"], { cwd: dir })) !== "";
}

/** What the bot learned about a worktree when it made it, before any test ran in it. */
export type WorktreeRecord = { commonDir: string; gitDir: string; sha: string };

const worktrees = new Map<string, WorktreeRecord>();

export async function addWorktree(repo: string, path: string, ref = "HEAD"): Promise<WorktreeRecord> {
  const common = await commonGitDir(repo);
  const sha = (await runGit(["rev-parse", "--verify", "--end-of-options", `${ref}^{commit}`], { cwd: repo })).trim();
  await runGit(["worktree", "add", "--detach", "--", path, sha], { cwd: repo });
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
  await runGit(["worktree", "remove", "--force", "--", path], { cwd: repo });
}

/** A branch name not yet taken: `base`, then `base-2`, `base-3`, ... */
export async function freeBranchName(repo: string, base: string): Promise<string> {
  const refs = await runGit(["for-each-ref", "--format=%(refname)", "refs/heads/"], { cwd: repo });
  const existing = new Set(refs.split("\n").map((ref) => ref.slice("refs/heads/".length)));
  if (!existing.has(base)) return base;
  for (let i = 2; ; i++) if (!existing.has(`${base}-${i}`)) return `${base}-${i}`;
}

export { BOT_IDENTITY };

export async function gitDir(repo: string): Promise<string> {
  return (await runGit(["rev-parse", "--absolute-git-dir"], { cwd: repo })).trim();
}

export async function commonGitDir(repo: string): Promise<string> {
  return resolve(repo, (await runGit(["rev-parse", "--git-common-dir"], { cwd: repo })).trim());
}
