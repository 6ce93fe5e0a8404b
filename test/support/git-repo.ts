// Real git repositories for tests: files written, committed on main; or one such repository
// built once per file and copied for each test that needs a fresh one.
import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { git } from "./git-client.ts";

/** `git -C dir …`, its output trimmed. */
export const sh = (dir: string, ...args: string[]) =>
  execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();

/** A contributor's commit of every tracked change in `dir` (what a pull request's author pushes). */
export const commit = (dir: string, message: string) =>
  sh(
    dir,
    "-c",
    "user.name=Dev",
    "-c",
    "user.email=dev@example.invalid",
    "commit",
    "--quiet",
    "--all",
    "--message",
    message,
  );

export async function gitRepo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-gitrepo-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  const g = git(dir);
  await g.raw(["init", "--quiet", "--initial-branch=main"]);
  await g.raw(["add", "--all"]);
  await g.raw([
    "-c",
    "user.name=Test",
    "-c",
    "user.email=test@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "initial",
  ]);
  return dir;
}

/**
 * Fresh copies of one repository (`files` committed on main): it is built by the first call and
 * each call copies it (a file copy in this process instead of git init, add and commit, which
 * start four git processes). Each copy is a repository of its own, with the same commit.
 */
export function gitRepoCopies(files: Record<string, string>): () => Promise<string> {
  let prepared: Promise<string> | undefined;
  return async () => {
    prepared ??= gitRepo(files);
    const dir = await mkdtemp(join(tmpdir(), "autogen-gitrepo-"));
    await cp(await prepared, dir, { recursive: true });
    return dir;
  };
}
