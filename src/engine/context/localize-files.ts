// The localize stage: the model is shown the candidate files by their best-matching symbols
// (never their licence headers) and names the files and functions to show; and the one-line
// map entry of a file (its path and top-level symbols) that stage and the context's map share.
import type { LlmClient } from "../../llm/llm-client.ts";
import { localizeSchema } from "../lpw/schemas.ts";
import type { Focus, Frame, SourceFile } from "./context-types.ts";
import { numberedWhole, renderRanges, type LineRange } from "./line-ranges-view.ts";
import { queryWords, splitIdentifiers } from "./retrieval-index.ts";
import { shortName, type CodeSymbol } from "./symbols.ts";

/** How many lines either side of a candidate's best line the localize stage sees. */
const CANDIDATE_WINDOW = 3;

export async function localize(
  llm: LlmClient,
  problem: string,
  repoMap: string,
  candidates: string[],
  files: Map<string, SourceFile>,
  retrieved: Focus[],
  maxFiles: number,
  frames: Frame[],
): Promise<Focus[]> {
  const shown = candidates.map((path) =>
    candidateView(
      files.get(path) as SourceFile,
      retrieved.filter((r) => r.path === path && r.symbol).map((r) => r.symbol as CodeSymbol),
      problem,
      frames,
    ),
  );
  const { value } = await llm.call(
    "localize",
    { untrusted: { problem, repoMap, candidates: shown.join("\n\n") }, trusted: { maxFiles: String(maxFiles) } },
    localizeSchema,
  );
  const out: Focus[] = [];
  const paths = value.files.filter((f) => files.has(f));
  for (const name of value.functions ?? []) {
    for (const path of paths) {
      const symbol = (files.get(path) as SourceFile).symbols.find(
        (s) => s.name === name || shortName(s) === name || name.endsWith(`.${s.name}`),
      );
      if (symbol) out.push({ path, symbol, reason: "model" });
    }
  }
  for (const path of paths) {
    const best = retrieved.find((r) => r.path === path);
    out.push(best ? { ...best, reason: "model" } : { path, symbol: undefined, reason: "model" });
  }
  return out;
}

/**
 * A candidate file as the localize stage sees it: each best-matching symbol's signature and
 * the window around its line that matches the problem best (the line a stack frame names
 * first); a file with no matching symbol by its best-matching lines, else its symbols'
 * names; never its licence header.
 */
function candidateView(file: SourceFile, best: CodeSymbol[], problem: string, frames: Frame[]): string {
  if (file.lines.length <= 12) return `--- ${file.path}\n${numberedWhole(file.lines)}`;
  const words = new Set(queryWords(problem));
  const hitsOn = (n: number) =>
    (
      splitIdentifiers(file.lines[n - 1] ?? "")
        .toLowerCase()
        .match(/[\p{L}\p{N}]{3,}/gu) ?? []
    ).filter((w) => words.has(w)).length;
  const bestLine = (from: number, to: number): number | undefined => {
    let line: number | undefined;
    let score = 0;
    for (let n = from; n <= to; n++) {
      const text = (file.lines[n - 1] ?? "").trim();
      if (text.startsWith("#") || text.startsWith("//") || text.startsWith("*")) continue;
      const hits = hitsOn(n);
      if (hits > score) [line, score] = [n, hits];
    }
    return line;
  };
  const window = (line: number): LineRange => ({ start: line - CANDIDATE_WINDOW, end: line + CANDIDATE_WINDOW });
  const ranges: LineRange[] = [];
  for (const symbol of best.slice(0, 2)) {
    ranges.push({ start: symbol.outerStart, end: Math.min(symbol.headerEnd, symbol.startLine + 2) });
    const framed = frames.find((f) => f.file === file.path && f.line >= symbol.startLine && f.line <= symbol.endLine);
    const line = framed?.line ?? bestLine(symbol.headerEnd + 1, symbol.endLine);
    if (line !== undefined) ranges.push(window(line));
  }
  if (ranges.length === 0) {
    const framed = frames.find((f) => f.file === file.path);
    const line = framed?.line ?? bestLine(1, file.lines.length);
    if (line === undefined) return mapLine(file);
    ranges.push(window(line));
  }
  const clipped = ranges.map((r) => ({ start: Math.max(1, r.start), end: Math.min(file.lines.length, r.end) }));
  return `--- ${file.path}\n${renderRanges(file.lines, clipped)}`;
}

export function mapLine(file: SourceFile, methods = false): string {
  const top = file.symbols.filter((s) => methods || s.kind !== "method").map((s) => s.name);
  return `${file.path}${top.length ? `: ${top.join(", ")}` : ""}`;
}
