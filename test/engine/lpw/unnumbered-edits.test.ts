import { describe, expect, it } from "vitest";
import { unnumberedEdits } from "../../../src/engine/lpw/unnumbered-edits.ts";

describe("search/replace blocks copied with the prompt's line numbers", () => {
  it("takes the numbers off when every line of the search carries one, blank lines included", () => {
    const [edit] = unnumberedEdits([
      {
        kind: "replace",
        path: "grid/table.py",
        search: "1745 |             if width is None:\n1746 |                 width = abs(width) or 1\n1747 | \n",
        replace: "1745 |             if width is None or width <= 0:\n",
      },
    ]);
    expect(edit).toEqual({
      kind: "replace",
      path: "grid/table.py",
      search: "            if width is None:\n                width = abs(width) or 1\n\n",
      replace: "            if width is None or width <= 0:\n",
    });
  });

  it("leaves code alone when only some lines look numbered, and a replace without numbers as written", () => {
    const code = { kind: "replace" as const, path: "a.py", search: "x = 1 | 2\n12 | y\n", replace: "x = 3\n" };
    expect(unnumberedEdits([code])).toEqual([code]);
    const [mixed] = unnumberedEdits([
      { kind: "replace", path: "a.py", search: "  7 | return a\n", replace: "return b\n" },
    ]);
    expect(mixed).toMatchObject({ search: "return a\n", replace: "return b\n" });
    const create = { kind: "create" as const, path: "new.py", content: "1 | not a number\n" };
    expect(unnumberedEdits([create])).toEqual([create]);
  });
});
