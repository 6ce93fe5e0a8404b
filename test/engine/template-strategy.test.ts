// The template strategy on real fixture bugs: real pytest runs in the sandbox, real
// coverage, real tree-sitter edits.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../src/engine/task.ts";
import { rankCandidates, templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { runTemplate, writeRepo } from "../support/python-task.ts";

type Case = { family: string; source: string; tests: string; fixed: string };

// One real bug per template family, each with tests that pass except for the bug.
const CASES: Case[] = [
  {
    family: "comparison-swap",
    source: "def passed(score, pass_mark):\n    return score > pass_mark\n",
    tests:
      "from lib import passed\n\ndef test_above():\n    assert passed(70, 50)\n\ndef test_below():\n    assert not passed(40, 50)\n\ndef test_at_mark():\n    assert passed(50, 50)\n",
    fixed: "return score >= pass_mark",
  },
  {
    family: "arithmetic-swap",
    source: "def total_price(price, tax):\n    return price - tax\n",
    tests:
      "from lib import total_price\n\ndef test_total():\n    assert total_price(100, 20) == 120\n\ndef test_no_tax():\n    assert total_price(5, 0) == 5\n",
    fixed: "return price + tax",
  },
  {
    family: "boolean-swap",
    source: "def can_enter(is_member, has_ticket):\n    return is_member and has_ticket\n",
    tests:
      "from lib import can_enter\n\ndef test_member():\n    assert can_enter(True, False)\n\ndef test_ticket():\n    assert can_enter(False, True)\n\ndef test_neither():\n    assert not can_enter(False, False)\n",
    fixed: "return is_member or has_ticket",
  },
  {
    family: "negate-condition",
    source:
      "def dedupe(items):\n    seen = []\n    for item in items:\n        if item in seen:\n            seen.append(item)\n    return seen\n",
    tests:
      "from lib import dedupe\n\ndef test_empty():\n    assert dedupe([]) == []\n\ndef test_repeats():\n    assert dedupe([1, 2, 1, 3, 2]) == [1, 2, 3]\n",
    fixed: "if not (item in seen):",
  },
  {
    family: "off-by-one",
    source: "def sum_to(n):\n    total = 0\n    for i in range(1, n):\n        total += i\n    return total\n",
    tests:
      "from lib import sum_to\n\ndef test_zero():\n    assert sum_to(0) == 0\n\ndef test_three():\n    assert sum_to(3) == 6\n\ndef test_ten():\n    assert sum_to(10) == 55\n",
    fixed: "range(1, n + 1)",
  },
  {
    family: "swap-arguments",
    source: "def power(base, exponent):\n    return pow(exponent, base)\n",
    tests:
      "from lib import power\n\ndef test_square():\n    assert power(3, 2) == 9\n\ndef test_cube():\n    assert power(2, 3) == 8\n\ndef test_one():\n    assert power(1, 1) == 1\n",
    fixed: "pow(base, exponent)",
  },
  {
    family: "variable-replace",
    source: "def average(values):\n    total = sum(values)\n    count = len(values)\n    return total / total\n",
    tests:
      "from lib import average\n\ndef test_average():\n    assert average([2, 4, 6]) == 4\n\ndef test_single():\n    assert average([5]) == 1 * 5\n",
    fixed: "return total / count",
  },
  {
    family: "function-swap",
    source: "def cheapest(prices):\n    return max(prices)\n",
    tests:
      "from lib import cheapest\n\ndef test_cheapest():\n    assert cheapest([3, 1, 2]) == 1\n\ndef test_one():\n    assert cheapest([7]) == 7\n",
    fixed: "return min(prices)",
  },
  {
    family: "drop-operand",
    source: "def fractional(number):\n    return number % 1.0 + 1.0\n",
    tests:
      "from lib import fractional\n\ndef test_half():\n    assert fractional(3.5) == 0.5\n\ndef test_whole():\n    assert fractional(2.0) == 0.0\n",
    fixed: "return number % 1.0\n",
  },
  {
    family: "drop-condition",
    source:
      "def count_even(numbers):\n    count = 0\n    for n in numbers:\n        if n > 0 and n % 2 == 0:\n            count += 1\n    return count\n",
    tests:
      "from lib import count_even\n\ndef test_positive():\n    assert count_even([1, 2, 4]) == 2\n\ndef test_negative():\n    assert count_even([-2, -3, 0]) == 2\n",
    fixed: "if n % 2 == 0:",
  },
  {
    family: "return-change",
    source: "def is_empty(items):\n    return bool(items)\n",
    tests:
      "from lib import is_empty\n\ndef test_empty():\n    assert is_empty([])\n\ndef test_full():\n    assert not is_empty([1])\n",
    fixed: "return not (bool(items))",
  },
  {
    family: "remove-statement",
    source: "def sorted_copy(items):\n    result = sorted(items)\n    result.reverse()\n    return result\n",
    tests:
      "from lib import sorted_copy\n\ndef test_sorts():\n    assert sorted_copy([3, 1, 2]) == [1, 2, 3]\n\ndef test_copy():\n    data = [2, 1]\n    sorted_copy(data)\n    assert data == [2, 1]\n",
    fixed: "    pass\n",
  },
  {
    family: "guard-statement",
    source:
      "def first_words(sentences):\n    out = []\n    for s in sentences:\n        out.append(s.split()[0])\n    return out\n",
    tests:
      "from lib import first_words\n\ndef test_words():\n    assert first_words(['a b', 'c']) == ['a', 'c']\n\ndef test_blank_lines_are_skipped():\n    assert first_words(['a b', '', 'c']) == ['a', 'c']\n",
    fixed: "        if s:\n            out.append(s.split()[0])\n",
  },
];

// Candidates run on warm pytest runners, as `autogen fix` runs them by default (test.warm);
// the cold runs are the parallel-validation case's below, and template-warm.test.ts shows both find the same fix.
/**
 * Each family's run, one at a time on warm runners: made once per file, so the parallel-validation
 * case below compares with the very run its family's case checked instead of making it again.
 */
const familyRuns = new Map<string, Promise<{ dir: string; outcome: Outcome }>>();
function familyRun(c: Case) {
  let run = familyRuns.get(c.family);
  if (!run) {
    run = writeRepo({ "lib.py": c.source, "test_lib.py": c.tests }).then(async (dir) => ({
      dir,
      outcome: await runTemplate(dir, 300, 1, [], true),
    }));
    familyRuns.set(c.family, run);
  }
  return run;
}

describe("template strategy: each family fixes a real bug", () => {
  for (const c of CASES) {
    it(`${c.family}`, async () => {
      const { dir, outcome } = await familyRun(c);
      expect(outcome.stopReason).toBe("solved");
      expect(outcome.status).toBe("fixed");
      expect(outcome.plan.fix?.family).toBe(c.family);
      expect(await readFile(join(dir, "lib.py"), "utf8")).toContain(c.fixed);
      expect(outcome.changedFiles).toEqual(["lib.py"]);
      expect(outcome.diff).toMatch(/^--- a\/lib\.py\n\+\+\+ b\/lib\.py\n@@ /);
      expect(outcome.evidence.after?.failed).toBe(0);
      expect(outcome.cost).toMatchObject({ llmCalls: 0, promptTokens: 0, completionTokens: 0 });
      expect(outcome.cost.candidatesTried).toBe(outcome.attempts.length);
      // before-run + coverage run + 1 or 2 runs per candidate (failing tests, then all visible).
      const plausibleRuns = 2;
      const failedAttempts = outcome.attempts.filter((a) => a.result !== "plausible");
      expect(outcome.cost.testRuns).toBe(
        2 + plausibleRuns + failedAttempts.reduce((n, a) => n + (a.result === "still-failing" ? 1 : 2), 0),
      );
    });
  }
});

describe("template strategy: parallel validation", () => {
  // Slot 0 is the workspace itself. On a busy machine the other slots' reads of the original
  // used to race slot 0's write of its candidate, so a candidate's edit became "the original"
  // for every later candidate (and was restored into the workspace): no fix in 3 of 4 runs.
  it("validates candidates in parallel copies and picks the same fix as one at a time", async () => {
    const c = CASES.find((x) => x.family === "variable-replace") as Case;
    // Warm runners in every slot, as `autogen fix` has them; template-parallel-race.test.ts forces the race on cold runs.
    // The family case's own run (made here if that case did not run first).
    const { outcome: sequential } = await familyRun(c);
    const dir = await writeRepo({ "lib.py": c.source, "test_lib.py": c.tests });
    const parallel = await runTemplate(dir, 300, 3, [], true);
    expect(sequential.stopReason).toBe("solved");
    expect(parallel.stopReason).toBe("solved");
    expect(parallel.plan.fix).toEqual(sequential.plan.fix);
    expect(parallel.diff).toBe(sequential.diff);
    // Exactly the fix, on exactly the original: nothing of another candidate left behind.
    expect(await readFile(join(dir, "lib.py"), "utf8")).toBe(c.source.replace("return total / total", c.fixed));
    // Each candidate was tried on the true original, so it ended as it did one at a time.
    const summary = (o: typeof parallel) =>
      o.attempts.map((a) => `${a.index}. ${a.description} at ${String(a.line)}: ${a.result}`);
    expect(summary(parallel).slice(0, sequential.attempts.length)).toEqual(summary(sequential));
    expect(parallel.attempts.map((a) => a.index)).toEqual(
      [...parallel.attempts.map((a) => a.index)].sort((a, b) => a - b),
    );
    expect(parallel.attempts.length).toBeLessThan(sequential.attempts.length + 3);
  });
});

describe("template strategy: localisation and order", () => {
  it("ranks the buggy line first when only the failing test reaches it", async () => {
    const source =
      'def sign(n):\n    if n < 0:\n        return "negative"\n    elif n == 0:\n        return "positive"\n    return "positive"\n';
    const tests =
      'from lib import sign\n\ndef test_negative():\n    assert sign(-3) == "negative"\n\ndef test_positive():\n    assert sign(4) == "positive"\n\ndef test_zero():\n    assert sign(0) == "zero"\n';
    const dir = await writeRepo({ "lib.py": source, "test_lib.py": tests });
    const outcome = await runTemplate(dir, 1);
    expect(outcome.plan.localisation[0]).toEqual({
      file: "lib.py",
      line: 5,
      score: 1,
      failedCovering: 1,
      passedCovering: 0,
    });
    expect(outcome.plan.localisation.every((l) => !l.file.startsWith("test_"))).toBe(true);
    expect(outcome.stopReason).toBe("budget");
  });

  it("orders candidates by suspiciousness times the template prior", async () => {
    const dir = await writeRepo({ "lib.py": "def f(a, b):\n    x = a + 1\n    return x < b\n" });
    const ranked = await rankCandidates(dir, [
      { file: "lib.py", line: 3, score: 1, failedCovering: 2, passedCovering: 0 },
      { file: "lib.py", line: 2, score: 0.5, failedCovering: 1, passedCovering: 1 },
    ]);
    expect(ranked[0]?.mutation).toMatchObject({ line: 3, family: "comparison-swap", replacement: "<=" });
    expect(ranked[0]?.score).toBe(1);
    for (let i = 1; i < ranked.length; i++) expect(ranked[i - 1]?.score).toBeGreaterThanOrEqual(ranked[i]?.score ?? 0);
    const firstOnLine2 = ranked.findIndex((r) => r.mutation.line === 2);
    expect(ranked[firstOnLine2]?.mutation).toMatchObject({ family: "arithmetic-swap", replacement: "-" });
    expect(ranked[firstOnLine2]?.score).toBe(0.5);
  });

  it("stops with nothing to fix when every visible test passes", async () => {
    const dir = await writeRepo({
      "lib.py": "def one():\n    return 1\n",
      "test_lib.py": "from lib import one\n\ndef test_one():\n    assert one() == 1\n",
    });
    const outcome = await runTemplate(dir);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "nothing-to-fix", attempts: [] });
  });

  it("reports exhaustion when no template fits, leaving the code unchanged", async () => {
    const source = "def greet(name):\n    return 'hello'\n";
    const dir = await writeRepo({
      "lib.py": source,
      "test_lib.py": "from lib import greet\n\ndef test_greet():\n    assert greet('ann') == 'hello ann'\n",
    });
    const outcome = await runTemplate(dir);
    expect(outcome.stopReason).toBe("exhausted");
    expect(outcome.diff).toBe("");
    expect(await readFile(join(dir, "lib.py"), "utf8")).toBe(source);
  });
});

describe("template strategy: runners it cannot localise with", () => {
  it("says so for a custom test command instead of guessing a language", async () => {
    const dir = await writeRepo({ "lib.py": "X = 1\n" });
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: { run: () => Promise.reject(new Error("not called")) },
      sandbox: { timeoutMs: 1000 },
      runnerName: "custom",
      isTestFile: () => false,
      budget: { candidates: 1, minutes: 1 },
    });
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "unsupported" });
    expect(outcome.message).toContain("this repository runs custom");
  });
});
