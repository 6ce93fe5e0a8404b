// Chosen line ranges of a file with their true line numbers, and a marker naming the
// exact lines left out between them (never a cut inside a range; a gap of a line or two
// shown instead when that is shorter).
import { gapMarker, numberedLine } from "../../workspace/numbered-line.ts";

export type LineRange = { start: number; end: number };

/** Gaps of at most this many lines may be shown rather than marked. */
const SHOWN_GAP = 2;

/** Sorted, merged ranges (1-based, inclusive); ranges separated only by blank lines are joined. */
export function mergeRanges(ranges: readonly LineRange[], lines: readonly string[]): LineRange[] {
  const sorted = ranges
    .filter((r) => r.end >= r.start)
    .map((r) => ({ ...r }))
    .sort((a, b) => a.start - b.start);
  const out: LineRange[] = [];
  for (const r of sorted) {
    const last = out.at(-1);
    if (last && r.start <= last.end + 1 + blankRun(lines, last.end + 1, r.start - 1))
      last.end = Math.max(last.end, r.end);
    else out.push(r);
  }
  return out;
}

/** Lines `from`..`to` (1-based) that are all blank: their count, else 0 (any text between keeps the ranges apart). */
function blankRun(lines: readonly string[], from: number, to: number): number {
  if (to < from) return 0;
  for (let n = from; n <= to; n++) if ((lines[n - 1] ?? "").trim() !== "") return 0;
  return to - from + 1;
}

export function renderRanges(lines: readonly string[], ranges: readonly LineRange[]): string {
  const total = lines.length;
  const out: string[] = [];
  let next = 1;
  // One or two lines left out are shown instead when that is no longer than the marker.
  const gap = (from: number, to: number) => {
    if (to < from) return;
    const marker = gapMarker(from, to);
    const shown = to - from < SHOWN_GAP ? lines.slice(from - 1, to).map((l, i) => numberedLine(from + i, l)) : [];
    if (shown.length > 0 && shown.join("\n").length <= marker.length) out.push(...shown);
    else out.push(marker);
  };
  for (const r of mergeRanges(ranges, lines)) {
    const start = Math.max(1, r.start);
    const end = Math.min(total, r.end);
    gap(next, start - 1);
    for (let n = start; n <= end; n++) out.push(numberedLine(n, lines[n - 1] ?? ""));
    next = end + 1;
  }
  // A file's final newline makes an empty last "line": not worth a marker.
  const lastText = lines.at(-1) === "" ? total - 1 : total;
  gap(next, lastText);
  return out.join("\n");
}

export function numberedWhole(lines: readonly string[]): string {
  return renderRanges(lines, [{ start: 1, end: lines.at(-1) === "" ? lines.length - 1 : lines.length }]);
}
