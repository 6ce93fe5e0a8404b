// A function's own variables, shared by the Python and JavaScript repair templates: the
// variable swaps and the guards draw only on the enclosing function's parameters and the
// names it binds, never on a nested function's or a global's.
import { describe, expect, it } from "vitest";
import { jsMutations } from "../../../src/engine/template/js-mutations.ts";
import { pythonMutations } from "../../../src/engine/template/python-mutations.ts";

const swapsAt = async (mutations: Promise<Array<{ family: string; description: string; line: number }>>) =>
  (await mutations).filter((m) => m.family === "variable-replace").map((m) => m.description);

describe("a function's variables in the repair templates", () => {
  it("Python: parameters (typed, defaulted, *rest), assignments, tuple targets and for-loop names; not a nested def's", async () => {
    const source = [
      "def f(a, b: int, c=1, *rest):",
      "    x, y = a, b",
      "    for k in rest:",
      "        total = k",
      "    def inner(q):",
      "        hidden = q",
      "    return x",
      "",
    ].join("\n");
    const swaps = await swapsAt(pythonMutations("f.py", source, new Set([7])));
    expect(swaps.sort()).toEqual(
      ["a", "b", "c", "rest", "k", "total", "y"].map((other) => `\`x\` → \`${other}\``).sort(),
    );
  });

  it("JavaScript: parameters (defaulted, destructured by default value), declarations; not a nested function's", async () => {
    const source = [
      "export function f(a, b = 2) {",
      "  const x = a + b;",
      "  let y = 0;",
      "  const g = function (hidden) { const inner = hidden; return inner; };",
      "  return x;",
      "}",
      "",
    ].join("\n");
    const swaps = await swapsAt(jsMutations("f.js", source, new Set([5])));
    expect(swaps.sort()).toEqual(["a", "b", "g", "y"].map((other) => `\`x\` → \`${other}\``).sort());
  });

  it("guards a Python statement by the variables it reads and its index's range, indenting the body", async () => {
    const source = "def g(items, i):\n    total = items[i]\n    return total\n";
    const guards = (await pythonMutations("g.py", source, new Set([2])))
      .filter((m) => m.family === "guard-statement")
      .map((m) => m.replacement);
    expect(guards).toEqual([
      "if total:\n        total = items[i]",
      "if items:\n        total = items[i]",
      "if i:\n        total = items[i]",
      "if 0 <= i < len(items):\n        total = items[i]",
    ]);
  });
});
