import { describe, expect, it } from "vitest";
import { unnumberedEdits } from "../../../src/engine/lpw/unnumbered-edits.ts";

describe("search/replace blocks copied with the prompt's line numbers", () => {
  it("takes the numbers off when every line of the search carries one, blank lines included (the padded form shown before)", () => {
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

  it("takes off the prompt's own prefix (number, then '|'), keeping the indentation after it", () => {
    const [edit] = unnumberedEdits([
      {
        kind: "replace",
        path: "grid/table.py",
        search: "1745|            if width is None:\n1746|                width = abs(width) or 1\n1747|\n",
        replace: "1745|            if width is None or width <= 0:\n1746|                width = 1\n1746|\n",
      },
    ]);
    expect(edit).toEqual({
      kind: "replace",
      path: "grid/table.py",
      search: "            if width is None:\n                width = abs(width) or 1\n\n",
      replace: "            if width is None or width <= 0:\n                width = 1\n\n",
    });
  });

  it("leaves code such as `1|2` alone: a line without a prefix, or numbers that do not run on by one", () => {
    const some = { kind: "replace" as const, path: "a.py", search: "flags = (\n1|2\n)\n", replace: "flags = 3\n" };
    expect(unnumberedEdits([some])).toEqual([some]);
    const skipping = { kind: "replace" as const, path: "a.py", search: "1|2\n4|8\n", replace: "3\n12\n" };
    expect(unnumberedEdits([skipping])).toEqual([skipping]);
    // A replace keeps its text when the search was not numbered, even if it looks numbered.
    const kept = { kind: "replace" as const, path: "a.py", search: "x = 0\n", replace: "1|2\n" };
    expect(unnumberedEdits([kept])).toEqual([kept]);
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
