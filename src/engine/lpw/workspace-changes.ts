// The changes an attempt made to the workspace, kept so the engine can start over from
// the original code ("re-implement from the plan") and compute the final diff.
import { existsSync } from "node:fs";
import { rm, writeFile, mkdir } from "node:fs/promises";
import { dirname } from "node:path";
import { applyEdits, type Edit } from "../../workspace/apply-edits.ts";
import { readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { safeRepoPath } from "../../workspace/safe-path.ts";
import { fileDiff } from "../../workspace/unified-diff.ts";
import type { Frame } from "../context/build-context.ts";

export class WorkspaceChanges {
  private readonly originals = new Map<string, string | null>();
  private readonly root: string;

  constructor(root: string) {
    this.root = root;
  }

  async apply(edits: Edit[]): Promise<void> {
    for (const path of edits.flatMap((e) => (e.kind === "rename" ? [e.from, e.to] : [e.path]))) {
      if (this.originals.has(path)) continue;
      const full = safeRepoPath(this.root, path);
      this.originals.set(path, existsSync(full) ? readWorktreeTextSync(this.root, path) : null);
    }
    await applyEdits(this.root, edits);
  }

  /** Back to the code as it was before any attempt. */
  async restore(): Promise<void> {
    for (const [path, text] of this.originals) {
      const full = safeRepoPath(this.root, path);
      if (text === null) await rm(full, { force: true });
      else {
        await mkdir(dirname(full), { recursive: true });
        await writeFile(full, text);
      }
    }
    this.originals.clear();
  }

  diff(): { diff: string; files: string[] } {
    const parts: string[] = [];
    const files: string[] = [];
    for (const [path, before] of [...this.originals].sort(([a], [b]) => a.localeCompare(b))) {
      const full = safeRepoPath(this.root, path);
      const after = existsSync(full) ? readWorktreeTextSync(this.root, path) : null;
      if (after === before) continue;
      files.push(path);
      parts.push(fileDiff(path, before, after));
    }
    return { diff: parts.join(""), files };
  }

  /** Where the current files differ from the originals: the first and last changed line of each changed file. */
  changedLines(): Frame[] {
    const out: Frame[] = [];
    for (const path of this.diff().files) {
      const full = safeRepoPath(this.root, path);
      if (!existsSync(full)) continue;
      const before = (this.originals.get(path) ?? "").split("\n");
      const after = readWorktreeTextSync(this.root, path).split("\n");
      let start = 0;
      while (start < before.length && start < after.length && before[start] === after[start]) start++;
      let end = after.length - 1;
      for (let b = before.length - 1; end > start && b > start && before[b] === after[end]; b--) end--;
      out.push({ file: path, line: start + 1 });
      if (end > start) out.push({ file: path, line: end + 1 });
    }
    return out;
  }
}
