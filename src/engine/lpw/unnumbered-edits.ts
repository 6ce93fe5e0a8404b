// The code in an implement or refine prompt is shown with its line numbers ("1746|code",
// src/workspace/numbered-line.ts; before 2026-12-07 "1746 | code") and parts of files left
// out. A model may copy the numbers into a search/replace block: when every line of a block
// carries one, they are taken off before the edit is applied. The unpadded form could be
// real code (`1|2` in Python), so a search block counts as numbered only when its numbers
// run on by one.
import type { Edit } from "../../workspace/apply-edits.ts";

/** The prefix as shown now: the number, "|", then the line's text (its indentation kept). */
const NUMBERED = /^(\d+)\|/;
/** The prefix as shown before: the number padded, " | ", then the text. */
const PADDED = /^ *\d+ \| ?/;

export function unnumberedEdits(edits: readonly Edit[]): Edit[] {
  return edits.map((edit) => {
    if (edit.kind !== "replace") return edit;
    const prefix = numberPrefix(edit.search);
    if (!prefix) return edit;
    const replacePrefix = numberPrefix(edit.replace, false);
    return {
      ...edit,
      search: strip(edit.search, prefix),
      replace: replacePrefix ? strip(edit.replace, replacePrefix) : edit.replace,
    };
  });
}

/**
 * The prefix every line of the text carries (a final empty line aside), if any. A search
 * block's numbers must run on by one; a replace block's need not (the model adds lines).
 */
function numberPrefix(text: string, consecutive = true): RegExp | undefined {
  const lines = text.split("\n").filter((l, i, all) => !(l === "" && i === all.length - 1));
  if (lines.length === 0) return undefined;
  if (lines.every((l) => PADDED.test(l))) return PADDED;
  const numbers = lines.map((l) => NUMBERED.exec(l)?.[1]);
  const first = Number(numbers[0]);
  if (numbers.every((n, i) => n !== undefined && (!consecutive || Number(n) === first + i))) return NUMBERED;
  return undefined;
}

function strip(text: string, prefix: RegExp): string {
  return text
    .split("\n")
    .map((l) => l.replace(prefix, ""))
    .join("\n");
}
