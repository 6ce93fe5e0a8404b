// A unified diff (git's, with `diff --git` headers, or a plain one) into files with their
// added and removed lines. Hunk line counts are followed, so content lines that look like
// headers ("--- x" removed, "+++ y" added) are read as content.
export type DiffFile = {
  oldPath: string | null;
  newPath: string | null;
  renamed: boolean;
  added: Array<{ line: number; text: string }>;
  removed: Array<{ line: number; text: string }>;
};

export function parseDiff(diff: string): DiffFile[] {
  const files: DiffFile[] = [];
  let file: DiffFile | undefined;
  let headerOpen = false;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  const start = () => {
    file = { oldPath: null, newPath: null, renamed: false, added: [], removed: [] };
    files.push(file);
  };
  for (const line of diff.split("\n")) {
    if (file && (oldLeft > 0 || newLeft > 0)) {
      if (line.startsWith("+")) {
        file.added.push({ line: newLine++, text: line.slice(1) });
        newLeft--;
      } else if (line.startsWith("-")) {
        file.removed.push({ line: oldLine++, text: line.slice(1) });
        oldLeft--;
      } else if (line.startsWith(" ") || line === "") {
        oldLine++;
        newLine++;
        oldLeft--;
        newLeft--;
      }
      continue;
    }
    if (line.startsWith("diff --git ")) {
      start();
      headerOpen = true;
      const m = /^diff --git a\/(.+) b\/(.+)$/.exec(line);
      if (m && file) {
        file.oldPath = m[1] ?? null;
        file.newPath = m[2] ?? null;
      }
    } else if (line.startsWith("--- ")) {
      if (!headerOpen) start();
      headerOpen = false;
      if (file) file.oldPath = line === "--- /dev/null" ? null : line.slice(4).replace(/^a\//, "");
    } else if (line.startsWith("+++ ") && file) {
      file.newPath = line === "+++ /dev/null" ? null : line.slice(4).replace(/^b\//, "");
    } else if (line.startsWith("rename from ") && file) {
      file.oldPath = line.slice(12);
      file.renamed = true;
    } else if (line.startsWith("rename to ") && file) {
      file.newPath = line.slice(10);
      file.renamed = true;
    } else if (line.startsWith("deleted file mode") && file) {
      file.newPath = null;
    } else if (line.startsWith("new file mode") && file) {
      file.oldPath = null;
    } else if (line.startsWith("@@")) {
      const m = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
      oldLine = Number(m?.[1] ?? 0);
      oldLeft = Number(m?.[2] ?? 1);
      newLine = Number(m?.[3] ?? 0);
      newLeft = Number(m?.[4] ?? 1);
      headerOpen = false;
    }
  }
  for (const f of files) if (f.oldPath && f.newPath && f.oldPath !== f.newPath) f.renamed = true;
  return files;
}
