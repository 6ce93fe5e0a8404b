// Unified diffs: a real line diff (LCS over the changed middle) rendered as hunks with
// context, for any pair of texts; and the stat of a diff.
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const a = toLines(before);
  const b = toLines(after);
  const ops = diffOps(a, b);
  const aEndsOpen = before !== "" && !before.endsWith("\n");
  const bEndsOpen = after !== "" && !after.endsWith("\n");
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

function diffOps(a: string[], b: string[]): Op[] {
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const am = a.slice(prefix, a.length - suffix);
  const bm = b.slice(prefix, b.length - suffix);
  const n = am.length;
  const m = bm.length;
  // LCS table over the middle only; template and model edits keep it small.
  const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1));
  for (let i = n - 1; i >= 0; i--) {
    const row = table[i] as Uint32Array;
    const next = table[i + 1] as Uint32Array;
    for (let j = m - 1; j >= 0; j--) row[j] = am[i] === bm[j] ? (next[j + 1] as number) + 1 : Math.max(next[j] as number, row[j + 1] as number);
  }
  const ops: Op[] = [];
  for (let k = 0; k < prefix; k++) ops.push({ kind: "same", text: a[k] as string, aIndex: k, bIndex: k });
  let i = 0;
  let j = 0;
  while (i < n || j < m) {
    if (i < n && j < m && am[i] === bm[j]) {
      ops.push({ kind: "same", text: am[i] as string, aIndex: prefix + i, bIndex: prefix + j });
      i++;
      j++;
    } else if (i < n && (j >= m || ((table[i + 1] as Uint32Array)[j] as number) >= ((table[i] as Uint32Array)[j + 1] as number))) {
      // Deletions before additions, as diff and git print them.
      ops.push({ kind: "del", text: am[i] as string, aIndex: prefix + i, bIndex: prefix + j });
      i++;
    } else {
      ops.push({ kind: "add", text: bm[j] as string, aIndex: prefix + i, bIndex: prefix + j });
      j++;
    }
  }
  for (let k = 0; k < suffix; k++) ops.push({ kind: "same", text: a[a.length - suffix + k] as string, aIndex: a.length - suffix + k, bIndex: b.length - suffix + k });
  return ops;
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
