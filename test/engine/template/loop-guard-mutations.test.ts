// The loop-guard family: each plain name a `while` condition computes or compares with
// becomes `name ** 2`; ranked first when the unchanged code's failing tests never ended.
import { describe, expect, it } from "vitest";
import { loopGuardMutations } from "../../../src/engine/template/loop-guard-mutations.ts";
import { applyMutation } from "../../../src/engine/template/mutation.ts";

describe("loopGuardMutations", () => {
  it("squares the operands of a Python guard, not the function it calls nor names outside the guard", async () => {
    const source = [
      "def root(n, tol):",
      "    mid = n / 2",
      "    while abs(mid - n) > tol and not done(mid):",
      "        mid = (mid + n / mid) / 2",
      "    return mid",
      "",
    ].join("\n");
    const m = await loopGuardMutations("python", "r.py", source, new Set([3, 4]));
    expect(m.map((x) => x.replacement).sort()).toEqual(["mid ** 2", "n ** 2", "tol ** 2"]);
    expect(m.every((x) => x.family === "square-operand" && x.line === 3 && x.prior === 0.4)).toBe(true);
    const fix = m.find((x) => x.start === source.indexOf("mid - n"));
    expect(fix && applyMutation(source, fix)).toContain("    while abs(mid ** 2 - n) > tol and not done(mid):\n");
    expect(fix?.description).toBe("`mid` → `mid ** 2` in the loop guard");
  });

  it("ranks a squared operand above every other family's prior when the unchanged code looped", async () => {
    const m = await loopGuardMutations(
      "python",
      "r.py",
      "def f(i, n):\n    while i <= n:\n        i += 1\n",
      new Set([2]),
      {
        looping: true,
      },
    );
    expect(m.map((x) => [x.replacement, x.prior])).toEqual([
      ["i ** 2", 1.5],
      ["n ** 2", 1.5],
    ]);
  });

  it("squares a JavaScript guard's operands (trial division's `i * i <= n` written `i <= n`)", async () => {
    const source =
      "export function smallestFactor(n) {\n  let i = 2;\n  while (i <= n) {\n    if (n % i === 0) return i;\n    i++;\n  }\n  return n;\n}\n";
    const m = await loopGuardMutations("javascript", "f.js", source, new Set([3]));
    expect(m.map((x) => x.replacement).sort()).toEqual(["i ** 2", "n ** 2"]);
    const first = m.find((x) => x.replacement === "i ** 2");
    expect(first && applyMutation(source, first)).toContain("  while (i ** 2 <= n) {\n");
  });

  it("proposes nothing for a guard that is a bare name, an `if`, or a line not asked for", async () => {
    const source =
      "def f(n, k):\n    while n:\n        n -= 1\n    if k < n:\n        return k\n    while k > 0:\n        k -= 1\n";
    expect(await loopGuardMutations("python", "f.py", source, new Set([2, 3, 4, 5]))).toEqual([]);
  });
});
