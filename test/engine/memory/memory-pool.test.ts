import { describe, expect, it } from "vitest";
import { cosine, formatMemory, MemoryPool } from "../../../src/engine/memory/memory-pool.ts";

const REPO = { installation: "1", repository: "octo-org/shop" };
const entry = (task: string, keywords: string[], embedding?: number[]) => ({
  task,
  plan: [`fix ${keywords[0]}`],
  verification: "ok",
  keywords,
  embedding,
});

describe("MemoryPool", () => {
  it("recalls the most similar accepted fixes of the same repository, by BM25", () => {
    const pool = new MemoryPool(":memory:");
    pool.remember(REPO, entry("Discount is added instead of subtracted in cart total", ["discount", "cartTotal"]));
    pool.remember(REPO, entry("Shipping label prints lower case address", ["shipping", "label"]));
    pool.remember(REPO, entry("Tax rounding off by one cent", ["tax", "rounding"]));
    const recalled = pool.recall(REPO, "the cart total ignores the discount coupon");
    expect(recalled[0]?.task).toBe("Discount is added instead of subtracted in cart total");
    expect(recalled[0]?.plan).toEqual(["fix discount"]);
    expect(recalled.length).toBeLessThanOrEqual(3);
  });

  it("never crosses repositories or installations", () => {
    const pool = new MemoryPool(":memory:");
    pool.remember({ installation: "2", repository: "octo-org/shop" }, entry("discount bug elsewhere", ["discount"]));
    pool.remember(
      { installation: "1", repository: "octo-org/other" },
      entry("discount bug in another repo", ["discount"]),
    );
    expect(pool.recall(REPO, "discount")).toEqual([]);
  });

  it("blends in embedding similarity when the caller has embeddings", () => {
    const pool = new MemoryPool(":memory:");
    pool.remember(REPO, entry("discount total wrong", ["discount"], [1, 0]));
    pool.remember(REPO, entry("discount applied twice to the total", ["discount"], [0, 1]));
    const lexical = pool.recall(REPO, "discount total");
    const hybrid = pool.recall(REPO, "discount total", { embedding: [0, 1], weight: 0.9 });
    expect(lexical[0]?.task).toBe("discount total wrong");
    expect(hybrid[0]?.task).toBe("discount applied twice to the total");
    expect(cosine([1, 0], [1, 0])).toBe(1);
  });

  it("formats recalled plans as examples for the plan stage", () => {
    expect(formatMemory([])).toBe("(none)");
    expect(
      formatMemory([{ id: 1, task: "Bug A\nmore", plan: ["x", "y"], verification: "", keywords: [], score: 1 }]),
    ).toBe("Example 1: Bug A\nPlan:\n1. x\n2. y");
  });
});
