// A unified diff of one file's old and new text: one hunk spanning everything between
// the first and last changed line, with context (what template edits need; a valid
// patch for `git apply` in every case, though not minimal for scattered changes).
export function unifiedDiff(path: string, before: string, after: string, context = 3): string {
  if (before === after) return "";
  const a = before.split("\n");
  const b = after.split("\n");
  let prefix = 0;
  while (prefix < a.length && prefix < b.length && a[prefix] === b[prefix]) prefix++;
  let suffix = 0;
  while (suffix < a.length - prefix && suffix < b.length - prefix && a[a.length - 1 - suffix] === b[b.length - 1 - suffix]) suffix++;
  const start = Math.max(0, prefix - context);
  const aEnd = Math.min(a.length, a.length - suffix + context);
  const bEnd = Math.min(b.length, b.length - suffix + context);
  const lines = [`--- a/${path}`, `+++ b/${path}`, `@@ -${start + 1},${aEnd - start} +${start + 1},${bEnd - start} @@`];
  for (let i = start; i < prefix; i++) lines.push(` ${a[i]}`);
  for (let i = prefix; i < a.length - suffix; i++) lines.push(`-${a[i]}`);
  for (let i = prefix; i < b.length - suffix; i++) lines.push(`+${b[i]}`);
  for (let i = a.length - suffix; i < aEnd; i++) lines.push(` ${a[i]}`);
  return `${lines.join("\n")}\n`;
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
