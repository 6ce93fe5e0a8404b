// A changed file's whole text before and after a diff: after from the worktree (through the
// safe reader), before rebuilt by taking the diff's hunks back out of it, so no second copy
// of the repository is needed to compare a file's sections.
import type { DiffFile } from "./parse-diff.ts";
import { tryReadWorktreeTextSync } from "./read-worktree-file.ts";
import type { FileSides } from "./test-infrastructure.ts";

/** Undefined when the file after the diff cannot be read (missing or refused): the caller then judges without its text. */
export function fileSides(workspace: string, file: DiffFile): FileSides | undefined {
  if (file.newPath === null) return { before: file.removed.map((r) => r.text).join("\n"), after: null };
  const after = tryReadWorktreeTextSync(workspace, file.newPath);
  if (after === undefined) return undefined;
  return { before: file.oldPath === null ? null : textBefore(after, file), after };
}

/** The old text: the new text without its added lines, with the removed lines put back at their old line numbers. */
export function textBefore(after: string, file: Pick<DiffFile, "added" | "removed">): string {
  const lines = after.split("\n");
  const added = new Set(file.added.map((a) => a.line));
  const removed = [...file.removed].sort((a, b) => a.line - b.line);
  const old: string[] = [];
  let next = 0;
  const putBack = () => {
    while (next < removed.length && removed[next]!.line === old.length + 1) old.push(removed[next++]!.text);
  };
  lines.forEach((line, i) => {
    putBack();
    if (!added.has(i + 1)) old.push(line);
  });
  putBack();
  for (; next < removed.length; next++) old.push(removed[next]!.text);
  return old.join("\n");
}
