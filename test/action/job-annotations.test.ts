import { describe, expect, it } from "vitest";
import { changedRanges } from "../../src/action/job-annotations.ts";

describe("changedRanges", () => {
  it("names the added lines of each hunk, not its context, per file", () => {
    const diff = [
      "diff --git a/shop/cart.py b/shop/cart.py",
      "--- a/shop/cart.py",
      "+++ b/shop/cart.py",
      "@@ -1,3 +1,4 @@",
      " def total(prices, discount):",
      "     subtotal = sum(prices)",
      "-    return subtotal + discount",
      "+    return subtotal - discount",
      "+    # fixed",
      "@@ -10,2 +11,3 @@",
      " a",
      "+b",
      " c",
      "diff --git a/new.py b/new.py",
      "--- /dev/null",
      "+++ b/new.py",
      "@@ -0,0 +1,2 @@",
      "+x = 1",
      "+y = 2",
      "diff --git a/gone.py b/gone.py",
      "--- a/gone.py",
      "+++ /dev/null",
      "@@ -1 +0,0 @@",
      "-z = 3",
    ].join("\n");
    expect(changedRanges(diff)).toEqual([
      { file: "shop/cart.py", line: 3, endLine: 4 },
      { file: "shop/cart.py", line: 12, endLine: 12 },
      { file: "new.py", line: 1, endLine: 2 },
    ]);
  });
});
