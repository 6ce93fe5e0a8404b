// Edits proposed by the model, applied to a workspace: search/replace blocks (exact
// first, then tolerant of whitespace), new files, deletions and renames. A search that
// matches nowhere or more than once fails with a message that shows where the closest
// text is, so the model can try again. All or nothing: on any error no file is changed.
import { lstatSync } from "node:fs";
import { rm } from "node:fs/promises";
import { z } from "zod";
import { numberedLine } from "./numbered-line.ts";
import { readWorktreeTextSync } from "./read-worktree-file.ts";
import { safeRepoPath, writeRepoFile } from "./safe-path.ts";
import { diffStat, fileDiff } from "./unified-diff.ts";

export const editSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("replace"), path: z.string().min(1), search: z.string().min(1), replace: z.string() }),
  z.object({ kind: z.literal("create"), path: z.string().min(1), content: z.string() }),
  z.object({ kind: z.literal("delete"), path: z.string().min(1) }),
  z.object({ kind: z.literal("rename"), from: z.string().min(1), to: z.string().min(1) }),
]);
export type Edit = z.infer<typeof editSchema>;

export class EditError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "EditError";
  }
}

export type AppliedEdits = { diff: string; files: string[]; stat: { files: number; added: number; removed: number } };

export async function applyEdits(root: string, edits: Edit[]): Promise<AppliedEdits> {
  // Plan every change in memory first; write only when all of them apply.
  const contents = new Map<string, string | null>();
  const originals = new Map<string, string | null>();
  const read = (path: string): string | null => {
    if (contents.has(path)) return contents.get(path) ?? null;
    // Whatever exists at the path must be a file safe to edit; a link or a special file is refused, not read through.
    const text = lstatSync(safeRepoPath(root, path), { throwIfNoEntry: false })
      ? readWorktreeTextSync(root, path)
      : null;
    originals.set(path, text);
    contents.set(path, text);
    return text;
  };
  for (const [index, edit] of edits.entries()) {
    const where = `edit ${index + 1} (${edit.kind} ${edit.kind === "rename" ? `${edit.from} → ${edit.to}` : edit.path})`;
    if (edit.kind === "replace") {
      const text = read(edit.path);
      if (text === null) throw new EditError(`${where}: ${edit.path} does not exist; use a create edit for a new file`);
      contents.set(edit.path, replaceOnce(text, edit.search, edit.replace, where));
    } else if (edit.kind === "create") {
      if (read(edit.path) !== null)
        throw new EditError(`${where}: ${edit.path} already exists; use a replace edit to change it`);
      contents.set(edit.path, edit.content);
    } else if (edit.kind === "delete") {
      if (read(edit.path) === null) throw new EditError(`${where}: ${edit.path} does not exist`);
      contents.set(edit.path, null);
    } else {
      const text = read(edit.from);
      if (text === null) throw new EditError(`${where}: ${edit.from} does not exist`);
      if (read(edit.to) !== null) throw new EditError(`${where}: ${edit.to} already exists`);
      contents.set(edit.to, text);
      contents.set(edit.from, null);
    }
  }
  const changed = [...contents].filter(([path, text]) => originals.get(path) !== text);
  for (const [path, text] of changed) {
    if (text === null) await rm(safeRepoPath(root, path), { force: true });
    else await writeRepoFile(root, path, text);
  }
  const diff = changed.map(([path, text]) => fileDiff(path, originals.get(path) ?? null, text)).join("");
  return { diff, files: changed.map(([path]) => path).sort(), stat: diffStat(diff) };
}

function replaceOnce(text: string, search: string, replacement: string, where: string): string {
  const exact = occurrences(text, search);
  if (exact.length === 1)
    return text.slice(0, exact[0]) + replacement + text.slice((exact[0] as number) + search.length);
  if (exact.length > 1)
    throw new EditError(
      `${where}: the search text matches ${exact.length} places (lines ${exact.map((i) => lineOf(text, i)).join(", ")}); include more surrounding lines so it matches one`,
    );

  // Tolerant: the same lines once leading and trailing whitespace is ignored.
  const lines = text.split("\n");
  const wanted = trimEmptyEnds(search.split("\n"));
  const key = (l: string) => l.trim();
  const matches: number[] = [];
  for (let i = 0; i + wanted.length <= lines.length; i++) {
    if (wanted.every((w, k) => key(w) === key(lines[i + k] as string))) matches.push(i);
  }
  if (matches.length === 1) {
    const at = matches[0] as number;
    // Map each indentation the search text used to the file's at the same line, then
    // re-indent the replacement with that map (longest known prefix first).
    const indent = (l: string) => /^\s*/.exec(l)?.[0] ?? "";
    const map = new Map<string, string>();
    wanted.forEach((w, k) => {
      if (w.trim()) map.set(indent(w), indent(lines[at + k] as string));
    });
    const known = [...map.keys()].sort((x, y) => y.length - x.length);
    const reindented = replacement.split("\n").map((l) => {
      const own = indent(l);
      const prefix = known.find((k) => own.startsWith(k));
      return prefix === undefined ? l : (map.get(prefix) ?? "") + l.slice(prefix.length);
    });
    return [...lines.slice(0, at), ...trimEmptyEnds(reindented), ...lines.slice(at + wanted.length)].join("\n");
  }
  if (matches.length > 1)
    throw new EditError(
      `${where}: ignoring whitespace, the search text matches ${matches.length} places (lines ${matches.map((m) => m + 1).join(", ")}); include more surrounding lines`,
    );
  throw new EditError(
    `${where}: the search text was not found. The closest region of the file is:\n${closestRegion(lines, wanted)}`,
  );
}

function occurrences(text: string, search: string): number[] {
  const found: number[] = [];
  for (let i = text.indexOf(search); i !== -1; i = text.indexOf(search, i + 1)) found.push(i);
  return found;
}

function lineOf(text: string, index: number): number {
  return text.slice(0, index).split("\n").length;
}

function trimEmptyEnds(lines: string[]): string[] {
  let start = 0;
  let end = lines.length;
  while (start < end && !lines[start]?.trim()) start++;
  while (end > start && !lines[end - 1]?.trim()) end--;
  return lines.slice(start, end);
}

/** The window of the file most like the search text, with line numbers. */
function closestRegion(lines: string[], wanted: string[]): string {
  const wantedSet = new Set(wanted.map((l) => l.trim()).filter(Boolean));
  let best = 0;
  let bestScore = -1;
  for (let i = 0; i < Math.max(1, lines.length - wanted.length + 1); i++) {
    let score = 0;
    for (let k = 0; k < wanted.length; k++) {
      const line = lines[i + k]?.trim() ?? "";
      if (wantedSet.has(line)) score += 2;
      else if (line && [...wantedSet].some((w) => similar(w, line))) score += 1;
    }
    if (score > bestScore) {
      bestScore = score;
      best = i;
    }
  }
  const from = Math.max(0, best - 1);
  const to = Math.min(lines.length, best + wanted.length + 1);
  return lines
    .slice(from, to)
    .map((l, k) => numberedLine(from + k + 1, l))
    .join("\n");
}

function similar(a: string, b: string): boolean {
  const words = (s: string) => new Set(s.split(/\W+/).filter(Boolean));
  const wa = words(a);
  const wb = words(b);
  const common = [...wa].filter((w) => wb.has(w)).length;
  return common > 0 && common / Math.max(wa.size, wb.size) >= 0.5;
}
