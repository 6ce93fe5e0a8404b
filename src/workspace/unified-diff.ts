// Unified diffs: Myers' O(ND) line diff (linear-space, over the changed middle) rendered
// as hunks with context, for any pair of texts; and the stat of a diff.
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const a = toLines(before);
  const b = toLines(after);
  const aEndsOpen = before !== "" && !before.endsWith("\n");
  const bEndsOpen = after !== "" && !after.endsWith("\n");
  const ops = diffOps(a, b, aEndsOpen, bEndsOpen);
  const hunks: string[] = [];
  let i = 0;
  while (i < ops.length) {
    while (i < ops.length && ops[i]?.kind === "same") i++;
    if (i >= ops.length) break;
    const start = Math.max(0, i - context);
    let end = i;
    // Extend the hunk while changes are closer than 2*context apart.
    for (;;) {
      while (end < ops.length && ops[end]?.kind !== "same") end++;
      let gap = end;
      while (gap < ops.length && ops[gap]?.kind === "same") gap++;
      if (gap < ops.length && gap - end <= context * 2) end = gap;
      else break;
    }
    end = Math.min(ops.length, end + context);
    const slice = ops.slice(start, end);
    const aStart = (ops[start]?.aIndex ?? 0) + 1;
    const bStart = (ops[start]?.bIndex ?? 0) + 1;
    const aCount = slice.filter((o) => o.kind !== "add").length;
    const bCount = slice.filter((o) => o.kind !== "del").length;
    hunks.push(`@@ -${aCount === 0 ? aStart - 1 : aStart},${aCount} +${bCount === 0 ? bStart - 1 : bStart},${bCount} @@`);
    for (const o of slice) {
      hunks.push(`${o.kind === "same" ? " " : o.kind === "del" ? "-" : "+"}${o.text}`);
      // The last line of a side without a final newline says so, as git expects.
      const lastOfA = o.kind !== "add" && o.aIndex === a.length - 1 && aEndsOpen;
      const lastOfB = o.kind !== "del" && o.bIndex === b.length - 1 && bEndsOpen;
      if (lastOfA || lastOfB) hunks.push("\\ No newline at end of file");
    }
    i = end;
  }
  return `--- a/${path}\n+++ b/${path}\n${hunks.join("\n")}\n`;
}

/** Lines of a text; a final newline ends the last line rather than starting an empty one. */
function toLines(text: string): string[] {
  if (text === "") return [];
  const lines = text.split("\n");
  if (lines.at(-1) === "") lines.pop();
  return lines;
}

type Op = { kind: "same" | "del" | "add"; text: string; aIndex: number; bIndex: number };

function diffOps(a: string[], b: string[], aEndsOpen: boolean, bEndsOpen: boolean): Op[] {
  // Lines as small integers, so the inner loops compare numbers, not strings.
  // A last line without its newline differs from the same text with one, as in git.
  const ids = new Map<string, number>();
  const intern = (lines: string[], endsOpen: boolean) => {
    const out = new Int32Array(lines.length);
    lines.forEach((line, k) => {
      const key = endsOpen && k === lines.length - 1 ? line : `${line}\n`;
      let id = ids.get(key);
      if (id === undefined) ids.set(key, (id = ids.size));
      out[k] = id;
    });
    return out;
  };
  const x = intern(a, aEndsOpen);
  const y = intern(b, bEndsOpen);
  // changedA[k] says line k of `a` is deleted, changedB[k] that line k of `b` is added.
  const changedA = new Uint8Array(x.length);
  const changedB = new Uint8Array(y.length);
  let prefix = 0;
  while (prefix < x.length && prefix < y.length && x[prefix] === y[prefix]) prefix++;
  let suffix = 0;
  while (suffix < x.length - prefix && suffix < y.length - prefix && x[x.length - 1 - suffix] === y[y.length - 1 - suffix]) suffix++;
  myers(x, y, changedA, changedB, prefix, x.length - suffix, prefix, y.length - suffix);
  // Slide each run of changes as git does, so ambiguous diffs read the way git prints them.
  compact(x, changedA, changedB);
  compact(y, changedB, changedA);

  const ops: Op[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (i < a.length && j < b.length && !changedA[i] && !changedB[j]) {
      ops.push({ kind: "same", text: a[i] as string, aIndex: i, bIndex: j });
      i++;
      j++;
      continue;
    }
    // Deletions before additions, as diff and git print them.
    while (i < a.length && changedA[i]) {
      ops.push({ kind: "del", text: a[i] as string, aIndex: i, bIndex: j });
      i++;
    }
    while (j < b.length && changedB[j]) {
      ops.push({ kind: "add", text: b[j] as string, aIndex: i, bIndex: j });
      j++;
    }
  }
  return ops;
}

/**
 * Myers' O((N+M)·D) diff in linear space: find the middle snake of the shortest edit
 * script, split the problem there, and mark what is deleted from `x` and added from `y`.
 */
function myers(x: Int32Array, y: Int32Array, changedX: Uint8Array, changedY: Uint8Array, xLo: number, xHi: number, yLo: number, yHi: number): void {
  const offset = x.length + y.length + 2;
  const fv = new Int32Array(2 * offset + 3);
  const bv = new Int32Array(2 * offset + 3);

  /**
   * A point on an optimal path that splits the problem in two smaller ones (the bisection
   * of diff-match-patch, scanning diagonals in the order git's xdiff does, so that ties
   * between equally short scripts fall the way git prints them).
   */
  const middleSnake = (x0: number, x1: number, y0: number, y1: number): [number, number] => {
    const n = x1 - x0;
    const m = y1 - y0;
    const delta = n - m;
    const odd = (delta & 1) !== 0;
    const maxD = Math.ceil((n + m) / 2);
    // Diagonal k holds points with (x - x0) - (y - y0) = k forward, and the same measure
    // taken from (x1, y1) backward; forward k meets backward delta - k. -1: not reached yet.
    fv.fill(-1, offset - maxD - 2, offset + maxD + 3);
    bv.fill(-1, offset - maxD - 2, offset + maxD + 3);
    fv[offset + 1] = 0;
    bv[offset + 1] = 0;
    // Diagonals whose path ran off the grid are dropped from the scan.
    let fStart = 0;
    let fEnd = 0;
    let bStart = 0;
    let bEnd = 0;
    for (let d = 0; d <= maxD; d++) {
      for (let k = d - fEnd; k >= -d + fStart; k -= 2) {
        let px = k === -d || (k !== d && (fv[offset + k - 1] as number) < (fv[offset + k + 1] as number)) ? (fv[offset + k + 1] as number) : (fv[offset + k - 1] as number) + 1;
        let py = px - k;
        while (px < n && py < m && x[x0 + px] === y[y0 + py]) {
          px++;
          py++;
        }
        fv[offset + k] = px;
        if (px > n) fEnd += 2;
        else if (py > m) fStart += 2;
        else if (odd && Math.abs(delta - k) <= d - 1) {
          const back = bv[offset + delta - k] as number;
          if (back !== -1 && back <= n && back - (delta - k) <= m && px + back >= n) return [x0 + px, y0 + py];
        }
      }
      for (let k = -d + bStart; k <= d - bEnd; k += 2) {
        let px = k === -d || (k !== d && (bv[offset + k - 1] as number) < (bv[offset + k + 1] as number)) ? (bv[offset + k + 1] as number) : (bv[offset + k - 1] as number) + 1;
        let py = px - k;
        while (px < n && py < m && x[x1 - 1 - px] === y[y1 - 1 - py]) {
          px++;
          py++;
        }
        bv[offset + k] = px;
        if (px > n) bEnd += 2;
        else if (py > m) bStart += 2;
        else if (!odd && Math.abs(delta - k) <= d) {
          const front = fv[offset + delta - k] as number;
          if (front !== -1 && front <= n && front - (delta - k) <= m && px + front >= n) return [x1 - px, y1 - py];
        }
      }
    }
    throw new Error("myers: no middle snake (unreachable)");
  };

  // An explicit stack rather than recursion, so no input can overflow the call stack.
  const stack: [number, number, number, number][] = [[xLo, xHi, yLo, yHi]];
  while (stack.length > 0) {
    let [x0, x1, y0, y1] = stack.pop() as [number, number, number, number];
    while (x0 < x1 && y0 < y1 && x[x0] === y[y0]) {
      x0++;
      y0++;
    }
    while (x0 < x1 && y0 < y1 && x[x1 - 1] === y[y1 - 1]) {
      x1--;
      y1--;
    }
    if (x0 === x1) {
      for (let k = y0; k < y1; k++) changedY[k] = 1;
    } else if (y0 === y1) {
      for (let k = x0; k < x1; k++) changedX[k] = 1;
    } else {
      const [midX, midY] = middleSnake(x0, x1, y0, y1);
      stack.push([midX, x1, midY, y1], [x0, midX, y0, midY]);
    }
  }
}

/**
 * git's change compaction (xdiff's xdl_change_compact, without the indent heuristic): slide
 * each group of changed lines up and then down as far as equal lines allow, merging groups
 * that meet, and leave it at the lowest position unless it can line up with a group of
 * changes in the other file.
 */
function compact(lines: Int32Array, changed: Uint8Array, other: Uint8Array): void {
  const n = changed.length;
  const no = other.length;
  const isChanged = (flags: Uint8Array, len: number, k: number) => k >= 0 && k < len && flags[k] === 1;
  let start = 0;
  let end = 0;
  while (isChanged(changed, n, end)) end++;
  let oStart = 0;
  let oEnd = 0;
  while (isChanged(other, no, oEnd)) oEnd++;
  const slideUp = () => {
    if (start > 0 && lines[start - 1] === lines[end - 1]) {
      changed[--start] = 1;
      changed[--end] = 0;
      while (isChanged(changed, n, start - 1)) start--;
      return true;
    }
    return false;
  };
  const slideDown = () => {
    if (end < n && lines[start] === lines[end]) {
      changed[start++] = 0;
      changed[end++] = 1;
      while (isChanged(changed, n, end)) end++;
      return true;
    }
    return false;
  };
  const otherPrevious = () => {
    oEnd = oStart - 1;
    for (oStart = oEnd; isChanged(other, no, oStart - 1); oStart--);
  };
  const otherNext = () => {
    oStart = oEnd + 1;
    for (oEnd = oStart; isChanged(other, no, oEnd); oEnd++);
  };
  for (;;) {
    if (end !== start) {
      let size: number;
      let earliestEnd: number;
      let endMatchingOther: number;
      do {
        size = end - start;
        endMatchingOther = -1;
        while (slideUp()) otherPrevious();
        earliestEnd = end;
        if (oEnd > oStart) endMatchingOther = end;
        while (slideDown()) {
          otherNext();
          if (oEnd > oStart) endMatchingOther = end;
        }
      } while (size !== end - start);
      if (end !== earliestEnd && endMatchingOther !== -1) {
        while (oEnd === oStart) {
          slideUp();
          otherPrevious();
        }
      }
    }
    if (end === n) break;
    start = end + 1;
    for (end = start; isChanged(changed, n, end); end++);
    otherNext();
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
