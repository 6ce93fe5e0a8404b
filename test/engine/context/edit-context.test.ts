import { describe, expect, it } from "vitest";
import { planNames } from "../../../src/engine/context/edit-context.ts";

describe("the identifiers a plan names", () => {
  it("keeps dotted method names, dunder methods and snake_case names, not file names", () => {
    const names = planNames(
      "1. In OrderedMultiDict.__getitem__, return the last value\n2. Make pop remove every value, as omd.poplast( does\n3. Leave boltons/dictutils.py's imports as they are; see wrap_text_to_colwidths",
    );
    expect(names).toEqual(
      expect.arrayContaining(["OrderedMultiDict.__getitem__", "__getitem__", "poplast", "wrap_text_to_colwidths"]),
    );
    expect(names).not.toContain("py");
    expect(names).not.toContain("dictutils.py");
  });
});
