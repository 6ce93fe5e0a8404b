// Unified diffs from git itself (`git diff --no-index` on two scratch files, Myers, no
// indent heuristic, every byte as text), with our headers and git's hunks; and the stat
// of a diff.
import { createHash } from "node:crypto";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { runGitSync } from "./run-git.ts";
import { makeTempDirSync, removeTempDirSync } from "./temp-dirs.ts";

export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const hunks = recentHunks(before, after, context);
  return hunks === "" ? "" : `--- a/${path}\n+++ b/${path}\n${hunks}`;
}

/**
 * The last hunks git gave, by their inputs: a candidate's change is diffed when its edits are
 * applied, when it is tried and again when it is accepted, each the same two texts (one git
 * run instead of three). git's answer depends on nothing else (its flags are pinned below).
 */
const RECENT = new Map<string, string>();
const RECENT_MAX = 32;

function recentHunks(before: string, after: string, context: number): string {
  const key = createHash("sha256").update(`${context}\0${before.length}\0`).update(before).update(after).digest("hex");
  const known = RECENT.get(key);
  if (known !== undefined) {
    RECENT.delete(key);
    RECENT.set(key, known);
    return known;
  }
  const hunks = gitHunks(before, after, context);
  RECENT.set(key, hunks);
  if (RECENT.size > RECENT_MAX) RECENT.delete(RECENT.keys().next().value as string);
  return hunks;
}

/** git's hunks for before → after: what follows its `+++` line, ranges always with their count. */
function gitHunks(before: string, after: string, context: number): string {
  const dir = makeTempDirSync("autogen-diff-");
  try {
    writeFileSync(join(dir, "a"), before);
    writeFileSync(join(dir, "b"), after);
    // Pinned flags: no configuration of the user's can change the answer (the global and
    // system files are off in safeGitEnv), and a file with a NUL byte is still diffed as text.
    // Exit status 1 means "the files differ", 0 that they do not; anything else is a failure.
    const result = runGitSync(
      [
        "diff",
        "--no-index",
        "--no-color",
        "--no-ext-diff",
        "--no-textconv",
        "--text",
        "--diff-algorithm=myers",
        "--no-indent-heuristic",
        `-U${context}`,
        "--",
        "a",
        "b",
      ],
      { cwd: dir, okExitCodes: [0, 1], timeoutMs: 0 },
    );
    if (result.exitCode === 0) return "";
    const out = result.stdout;
    const start = out.indexOf("\n@@");
    if (start === -1) return "";
    // No function-name trailer, and `-5` written `-5,1`, as every range had before.
    return out
      .slice(start + 1)
      .replace(
        /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@.*$/gm,
        (_m, a: string, ac: string | undefined, b: string, bc: string | undefined) =>
          `@@ -${a},${ac ?? "1"} +${b},${bc ?? "1"} @@`,
      );
  } finally {
    removeTempDirSync(dir);
  }
}

/** The diff of one file, where `null` means the file does not exist on that side. */
export function fileDiff(path: string, before: string | null, after: string | null): string {
  const diff = unifiedDiff(path, before ?? "", after ?? "");
  if (!diff) return "";
  if (before === null) return diff.replace(`--- a/${path}`, "--- /dev/null");
  if (after === null) return diff.replace(`+++ b/${path}`, "+++ /dev/null");
  return diff;
}

export function diffStat(diff: string): { files: number; added: number; removed: number } {
  let files = 0;
  let added = 0;
  let removed = 0;
  for (const line of diff.split("\n")) {
    if (line.startsWith("+++ ")) files++;
    else if (line.startsWith("+")) added++;
    else if (line.startsWith("-") && !line.startsWith("--- ")) removed++;
  }
  return { files, added, removed };
}
