// The innermost V8 coverage range holding each of many offsets, in one sweep: V8's ranges of a
// script are nested or disjoint, so after sorting (start ascending, the longer first) the open
// ranges form a stack whose top is the innermost. O((offsets + ranges) log) instead of offsets x
// ranges: a forged coverage of millions of ranges costs a sort, not hours. Ranges that cross (only
// a forged coverage has them) give some containing range, never an unbounded search.

export type CoverageRange = { startOffset: number; endOffset: number; count: number };

/** For each offset, the smallest range holding it (of identical ones, the last given), or undefined. */
export function innermostRanges<R extends CoverageRange>(
  offsets: readonly number[],
  ranges: readonly R[],
): (R | undefined)[] {
  const order = offsets.map((_, index) => index).sort((a, b) => offsets[a]! - offsets[b]!);
  const sorted = ranges
    .map((range, index) => ({ range, index }))
    .sort(
      (a, b) => a.range.startOffset - b.range.startOffset || b.range.endOffset - a.range.endOffset || a.index - b.index,
    )
    .map(({ range }) => range);
  const result = new Array<R | undefined>(offsets.length);
  const open: R[] = [];
  let next = 0;
  for (const index of order) {
    const at = offsets[index]!;
    while (next < sorted.length && sorted[next]!.startOffset <= at) open.push(sorted[next++]!);
    while (open.length > 0 && open[open.length - 1]!.endOffset <= at) open.pop();
    result[index] = open[open.length - 1];
  }
  return result;
}
