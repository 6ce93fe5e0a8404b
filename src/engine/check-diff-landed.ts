// A fixed Outcome's diff must be in the worktree's own files, read through the safe-path
// gate: a change written through a symbolic link (or lost) leaves the branch unchanged,
// and the run is then no fix, whatever the tests said.
import { lstatSync } from "node:fs";
import { parseDiff } from "../workspace/parse-diff.ts";
import { safeRepoPath, UnsafePathError } from "../workspace/safe-path.ts";
import { readWorktreeText } from "../workspace/read-worktree-file.ts";
import type { Outcome } from "./task.ts";

export async function checkDiffLanded(workspace: string, outcome: Outcome): Promise<void> {
  if (outcome.status !== "fixed") return;
  const problem = await missingFromWorktree(workspace, outcome.diff);
  if (!problem) return;
  Object.assign(outcome, {
    status: "not-fixed",
    stopReason: "error",
    message: `the change passed the tests but is not in the worktree: ${problem}`,
  });
}

/** Why the diff's result is not what the worktree holds, or undefined when it is. */
export async function missingFromWorktree(workspace: string, diff: string): Promise<string | undefined> {
  const files = parseDiff(diff);
  if (files.length === 0) return "the diff is empty";
  for (const file of files) {
    try {
      if (file.newPath === null) {
        if (file.oldPath !== null && lstatSync(safeRepoPath(workspace, file.oldPath), { throwIfNoEntry: false }))
          return `${file.oldPath} should be deleted but is still there`;
        continue;
      }
      if (
        file.renamed &&
        file.oldPath !== null &&
        lstatSync(safeRepoPath(workspace, file.oldPath), { throwIfNoEntry: false })
      )
        return `${file.oldPath} should be renamed but is still there`;
      const lines = (await readWorktreeText(workspace, file.newPath)).split("\n");
      const wrong = file.added.find((a) => lines[a.line - 1] !== a.text);
      if (wrong) return `${file.newPath}:${wrong.line} does not hold the changed line`;
    } catch (error) {
      if (error instanceof UnsafePathError) return error.message;
      if ((error as NodeJS.ErrnoException).code === "ENOENT")
        return `${file.newPath ?? file.oldPath ?? "a file"} is missing`;
      throw error;
    }
  }
  return undefined;
}
