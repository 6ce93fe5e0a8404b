import { splitLine } from "./split-line.js";

// Text with a header line into one object per record.
export function parseCsv(text, { delimiter = "," } = {}) {
  const lines = text.split(/\r?\n/).filter((line) => line.trim() !== "");
  if (lines.length === 0) return [];
  const header = splitLine(lines[0], delimiter).map((h) => h.trim());
  return lines.slice(1).map((line, index) => {
    const fields = splitLine(line, delimiter);
    if (fields.length !== header.length) throw new Error(`record ${index + 1} has ${fields.length} fields, expected ${header.length}`);
    return Object.fromEntries(header.map((name, i) => [name, fields[i]]));
  });
}
