// Scratch copies of the worktree (no .git; node_modules linked) for the behaviour
// harness: the code after the fix as it is, and before it with the fix's diff reversed,
// so both sides run with the same files, dependencies and grants, and the calls (which
// run repository code) never write into the worktree that is published.
import { cp, lstat, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { dirname, join } from "node:path";
import { grantDirectory, revokeGrants, shareGrants } from "../../verify/sandbox/workspace-grants.ts";
import { runGit } from "../../workspace/run-git.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

export type ScratchCopy = { dir: string; remove: () => Promise<void> };

/** `reverse`: a diff to undo in the copy (the fix, for the code before it). */
export async function scratchCopy(workspace: string, reverse?: string): Promise<ScratchCopy> {
  const dir = await makeTempDir(reverse === undefined ? "autogen-after-" : "autogen-before-");
  const remove = async () => {
    revokeGrants(dir);
    await removeTempDir(dir);
  };
  try {
    await cp(workspace, dir, {
      recursive: true,
      filter: (src) => !/(^|\/)(\.git|node_modules)(\/|$)/.test(src.slice(workspace.length)),
    });
    if ((await lstat(join(workspace, "node_modules")).catch(() => undefined))?.isDirectory()) {
      await symlink(join(workspace, "node_modules"), join(dir, "node_modules"));
      grantDirectory(dir, join(workspace, "node_modules"));
    }
    shareGrants(workspace, dir);
    if (reverse === undefined) return { dir, remove };
    // Outside any repository (the ceiling stops git looking above the copy): a plain patch.
    await runGit(["apply", "-R", "--whitespace=nowarn", "-"], {
      cwd: dir,
      input: reverse,
      ceilingDirectory: dirname(dir),
    }).catch((error: unknown) => {
      throw new Error(
        `the fix's diff does not reverse on a copy of the worktree: ${(error as Error).message.split("\n")[0] ?? ""}`,
      );
    });
    if (!existsSync(dir)) throw new Error("the copy of the worktree is gone");
    return { dir, remove };
  } catch (error) {
    await remove();
    throw error;
  }
}
