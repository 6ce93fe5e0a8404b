// The bitwise-swap family: the bit operators swapped among themselves, in Python and JavaScript,
// plain and augmented (Kernighan's bit count written `n ^= n - 1` for `n &= n - 1`).
import { describe, expect, it } from "vitest";
import { applyMutation } from "../../../src/engine/template/mutation.ts";
import { jsMutations } from "../../../src/engine/template/js-mutations.ts";
import { pythonMutations } from "../../../src/engine/template/python-mutations.ts";

describe("bitwise-swap", () => {
  it("swaps Python's ^= for &= and |=, and a shift for the other", async () => {
    const source = "def f(n, k):\n    while n:\n        n ^= n - 1\n    return (n << k) | 1\n";
    const m = (await pythonMutations("f.py", source, new Set([3, 4]))).filter((x) => x.family === "bitwise-swap");
    expect(m.map((x) => x.description).sort()).toEqual([
      "`<<` → `>>`",
      "`^=` → `&=`",
      "`^=` → `|=`",
      "`|` → `&`",
      "`|` → `^`",
    ]);
    const and = m.find((x) => x.replacement === "&=");
    expect(and && applyMutation(source, and)).toContain("n &= n - 1");
    // The likeliest swap of `^` is `&`: it ranks first.
    expect(m.find((x) => x.line === 3 && x.prior === 1)?.replacement).toBe("&=");
  });

  it("swaps JavaScript's bit operators, >>> included", async () => {
    const source = "export function f(n) {\n  n ^= n - 1;\n  return (n >> 1) & 3;\n}\n";
    const m = (await jsMutations("f.js", source, new Set([2, 3]))).filter((x) => x.family === "bitwise-swap");
    expect(m.map((x) => x.description).sort()).toEqual([
      "`&` → `^`",
      "`&` → `|`",
      "`>>` → `<<`",
      "`>>` → `>>>`",
      "`^=` → `&=`",
      "`^=` → `|=`",
    ]);
  });

  it("leaves arithmetic without bit operators alone", async () => {
    const m = await pythonMutations("g.py", "def g(a, b):\n    return a + b\n", new Set([2]));
    expect(m.filter((x) => x.family === "bitwise-swap")).toEqual([]);
  });
});
