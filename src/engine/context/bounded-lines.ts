// Lists of lines cut to a number of characters, saying how many were left out.

/** The lines that fit in `maxChars` with a last line counting those left out ("… (3 more files)"); nothing when none fits. */
export function within(lines: string[], maxChars: number, more: string): string {
  const out: string[] = [];
  let used = 0;
  for (const [i, line] of lines.entries()) {
    const tail = i + 1 < lines.length ? `\n… (${lines.length - i - 1} more ${more})`.length : 0;
    if (used + line.length + 1 + tail > maxChars) break;
    out.push(line);
    used += line.length + 1;
  }
  if (out.length === 0) return "";
  if (out.length < lines.length) out.push(`… (${lines.length - out.length} more ${more})`);
  return out.join("\n");
}

/** The lines that fit in `maxChars`, the last saying how many files were left out. */
export function bounded(lines: string[], maxChars: number): string {
  const out: string[] = [];
  let used = 0;
  for (const line of lines) {
    if (used + line.length + 1 > maxChars) {
      out.push(`… (${lines.length - out.length} more files)`);
      break;
    }
    out.push(line);
    used += line.length + 1;
  }
  return out.join("\n");
}
