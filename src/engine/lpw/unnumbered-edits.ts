// The code in an implement or refine prompt is shown with its line numbers ("1746 | code")
// and parts of files left out. A model may copy the numbers into a search/replace block:
// when every line of a block carries one, they are taken off before the edit is applied.
import type { Edit } from "../../workspace/apply-edits.ts";

const NUMBERED = /^ *\d+ \| ?/;

export function unnumberedEdits(edits: readonly Edit[]): Edit[] {
  return edits.map((edit) => {
    if (edit.kind !== "replace" || !allNumbered(edit.search)) return edit;
    return {
      ...edit,
      search: strip(edit.search),
      replace: allNumbered(edit.replace) ? strip(edit.replace) : edit.replace,
    };
  });
}

function allNumbered(text: string): boolean {
  const lines = text.split("\n").filter((l, i, all) => !(l === "" && i === all.length - 1));
  return lines.length > 0 && lines.every((l) => NUMBERED.test(l));
}

function strip(text: string): string {
  return text
    .split("\n")
    .map((l) => l.replace(NUMBERED, ""))
    .join("\n");
}
