// The template strategy's JavaScript side: V8 ranges to lines, and mutations.
import { describe, expect, it } from "vitest";
import { coveredLines } from "../../src/engine/template/coverage-reader.ts";
import { jsMutations } from "../../src/engine/template/js-mutations.ts";

describe("coveredLines", () => {
  it("takes the innermost V8 range holding each line's first character", () => {
    const source = "function f(x) {\n  if (x) {\n    return 1;\n  }\n  return 2;\n}\nf(0);\n";
    const at = (text: string) => source.indexOf(text);
    const ranges = [
      { startOffset: 0, endOffset: source.length, count: 1 },
      { startOffset: 0, endOffset: at("f(0)") - 1, count: 1 },
      { startOffset: at("{\n    return 1"), endOffset: at("  return 2"), count: 0 },
    ];
    expect([...coveredLines(source, ranges)].sort((a, b) => a - b)).toEqual([1, 2, 5, 7]);
  });
});

describe("jsMutations", () => {
  it("generates each family on JavaScript and TypeScript syntax, only at the given lines", async () => {
    const js = "export function f(a, b) {\n  if (a < b && !a) return Math.max(a, b);\n  return a - 1;\n}\n";
    const m = await jsMutations("f.js", js, new Set([2]));
    const families = new Set(m.map((x) => x.family));
    expect([...families].sort()).toEqual([
      "boolean-swap",
      "comparison-swap",
      "drop-condition",
      "function-swap",
      "negate-condition",
      "return-change",
      "swap-arguments",
      "variable-replace",
    ]);
    expect(m.every((x) => x.line === 2)).toBe(true);
    expect(m.find((x) => x.family === "function-swap")).toMatchObject({ replacement: "min" });
    const ts = await jsMutations(
      "f.ts",
      "export function g(n: number): number {\n  return n * 2;\n}\n",
      new Set([2]),
      "typescript",
    );
    expect(ts.map((x) => x.description)).toContain("`*` → `/`");
    expect(ts.map((x) => x.description)).toContain("2 → 3");
    const guarded = await jsMutations(
      "g.js",
      "export function g(items, i) {\n  total += items[i];\n  return total;\n}\n",
      new Set([2]),
    );
    expect(guarded.filter((x) => x.family === "guard-statement").map((x) => x.replacement)).toEqual([
      "if (items) { total += items[i]; }",
      "if (i) { total += items[i]; }",
      "if (i >= 0 && i < items.length) { total += items[i]; }",
    ]);
  });
});

describe("jsMutations on names that are also Object.prototype members", () => {
  it("does not take toString, valueOf or constructor for a swap table entry (it crashed the run)", async () => {
    const js = "export function f(x) {\n  return x.toString() + x.valueOf() + x.constructor.name;\n}\n";
    const m = await jsMutations("f.js", js, new Set([2]));
    expect(m.filter((x) => x.family === "function-swap")).toEqual([]);
    expect(m.length).toBeGreaterThan(0);
  });
});
