// SLPW's report says how many sampled plans differ in substance, not in spacing or case.
import { describe, expect, it } from "vitest";
import { distinctPlans } from "../../src/engine/slpw/distinct-plans.ts";

describe("distinctPlans", () => {
  it("counts plans that differ only in case, spacing or punctuation once", () => {
    const plan = ["In `composeNode`, register the anchor before the empty-node check.", "Return the node."];
    const copy = ["in composeNode register the anchor before the empty node check", "return   the node"];
    expect(distinctPlans([plan, copy, plan])).toBe(1);
  });

  it("counts plans that take different approaches apart", () => {
    const a = ["In `composeNode`, register the anchor before the empty-node check."];
    const b = ["In `readBlockMapping`, create a null node with the pending anchor when the value is empty."];
    const c = ["Make `storeMappingPair` look up anchors lazily when an alias is resolved."];
    expect(distinctPlans([a, b, c])).toBe(3);
  });

  it("counts a plan with one extra step that changes the approach as different", () => {
    const a = ["Register the anchor for empty nodes.", "Return null for the empty node."];
    const b = [...a, "Also throw a YAMLException when the alias names an anchor defined later in the document."];
    expect(distinctPlans([a, b])).toBe(2);
  });
});
