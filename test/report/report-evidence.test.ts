// The report a reviewer reads: verdict, plan, diff, proof, then the details collapsed; the
// gate's numbers add up with the visible ones; long failures are cut with the cut marked;
// no internal strategy names; the commit message says what changed and links the issue.
import { describe, expect, it } from "vitest";
import { emptyOutcome, type Outcome, type TestEvidence } from "../../src/engine/task.ts";
import { fixCommitMessage } from "../../src/report/commit-message.ts";
import { renderReport } from "../../src/report/render-report.ts";

const evidence = (tests: TestEvidence["tests"]): TestEvidence => ({
  command: ["python", "-m", "pytest"],
  isolation: "bwrap",
  passed: tests.filter((t) => t.status === "pass").length,
  failed: tests.filter((t) => t.status === "fail" || t.status === "error").length,
  skipped: tests.filter((t) => t.status === "skip").length,
  tests,
});

const LONG = `AssertionError: assert [] == 1\n${"where [] = last(<C object>, [])\n".repeat(60)}`;

function lpwFix(): Outcome {
  const o = emptyOutcome("template+lpw");
  Object.assign(o, {
    status: "fixed",
    stopReason: "solved",
    message: "the implementation of the verified plan passes the visible tests and the regression gate",
    changedFiles: ["more_itertools/more.py", "tests/test_repro.py"],
  });
  o.diff =
    "--- a/more_itertools/more.py\n+++ b/more_itertools/more.py\n@@ -1 +1 @@\n-        if hasattr(iterable, '__reversed__'):\n+        if getattr(iterable, '__reversed__', None):\n";
  o.plan.steps = ["Treat __reversed__ = None as not reversible"];
  o.plan.verified = true;
  o.evidence.reproduction = {
    path: "tests/test_repro.py",
    testId: "tests/test_repro.py::test_none",
    testIds: ["tests/test_repro.py::test_none"],
    failure: LONG,
    attempts: 1,
  };
  o.evidence.before = evidence([{ id: "tests/test_repro.py::test_none", status: "fail", message: LONG }]);
  o.evidence.after = evidence([{ id: "tests/test_repro.py::test_none", status: "pass" }]);
  // The full suite before the reproduction test existed, and after: one more test, not a contradiction.
  o.evidence.regressionBefore = evidence([
    { id: "tests/test_more.py::test_a", status: "pass" },
    { id: "tests/test_more.py::test_b", status: "pass" },
    { id: "tests/test_more.py::test_old", status: "fail" },
  ]);
  o.evidence.regressionAfter = evidence([
    { id: "tests/test_more.py::test_a", status: "pass" },
    { id: "tests/test_more.py::test_b", status: "pass" },
    { id: "tests/test_more.py::test_old", status: "fail" },
    { id: "tests/test_repro.py::test_none", status: "pass" },
  ]);
  return o;
}

describe("the report", () => {
  it("leads with the verdict, plan, diff and proof, and collapses the details", () => {
    const report = renderReport(lpwFix(), { title: "autogen: last() fails when __reversed__ is None" });
    const at = (s: string) => report.indexOf(s);
    expect(report).not.toContain("template+lpw");
    expect(report).toContain(
      "**Fixed**, planned by the model, the plan checked on the tests, then written by the model:",
    );
    expect(at("### Plan")).toBeLessThan(at("### Diff"));
    expect(at("### Diff")).toBeLessThan(at("### Proof"));
    expect(at("### Proof")).toBeLessThan(at("### Details"));
    expect(at("### Details")).toBeLessThan(at("<details><summary>Every visible test"));
    expect(report).toContain("- `tests/test_repro.py::test_none` (new): ❌ fail before → ✅ passes after");
  });

  it("the gate's numbers are per test id: what still passes, what the change fixed or broke, what it added", () => {
    const report = renderReport(lpwFix(), { title: "t" });
    expect(report).toContain("Regression gate (full suite): before 2 passed, 1 failed; after 3 passed, 1 failed.");
    expect(report).toContain(
      "- still passing: 2; failing before, passing after: 0; passing before, failing after: 0 ✅",
    );
    expect(report).toContain("- added by this change: 1 (1 passing)");
    expect(report).toContain("- pre-existing failures (failing before the change too): `tests/test_more.py::test_old`");
    expect(report).toContain(
      "- ✅ Every test that ran before the change ran after it (3 of 3): none skipped, deselected, xfailed or missing.",
    );
  });

  it("a long failure is cut at a line's worth of characters, the cut marked, never silently", () => {
    const report = renderReport(lpwFix(), { title: "t" });
    expect(report).toContain(`… (cut: ${LONG.trimEnd().length - 1000} more characters)`);
    expect(report).toContain(
      "failed on the unchanged code: AssertionError: assert [] == 1 where [] = last(<C object>, [])",
    );
  });

  it("a test that ran before and is skipped after is named in the tampering check", () => {
    const o = lpwFix();
    o.evidence.regressionAfter = evidence([
      { id: "tests/test_more.py::test_a", status: "pass" },
      { id: "tests/test_more.py::test_b", status: "skip" },
      { id: "tests/test_more.py::test_old", status: "fail" },
    ]);
    expect(renderReport(o, { title: "t" })).toContain(
      "- ❌ 1 of the 3 tests that ran before the change did not run after it: `tests/test_more.py::test_b` (skip)",
    );
  });

  it("names each attempt's result in a reviewer's words, not the engine's", () => {
    const o = lpwFix();
    const results = ["still-failing", "regression-failed", "refused", "plausible"] as const;
    o.attempts = results.map((result, i) => ({
      index: i + 1,
      description: `edit ${String(i + 1)}`,
      result,
      passed: 1,
      failed: result === "plausible" || result === "refused" ? 0 : 1,
      file: "more_itertools/more.py",
      line: 3,
      ...(result === "refused" ? { reason: "last(C(), []) would return []" } : {}),
    }));
    o.cost.candidatesGenerated = 9;
    const report = renderReport(o, { title: "t" });
    expect(report).toContain("<summary>Attempts: 4 of 9 candidate change(s) tested</summary>");
    const rows = report.split("\n").filter((l) => /^\| \d+ \| edit /.test(l));
    expect(rows.map((r) => r.split(" | ")[3])).toEqual([
      "the failing tests still fail",
      "breaks a test that passed before the change",
      "refused by the model's review: last(C(), []) would return []",
      "passes the tests",
    ]);
  });

  it("a refused mechanical edit: not fixed, and the model's reason is in the report", () => {
    const o = emptyOutcome("template");
    Object.assign(o, {
      stopReason: "refused",
      message: "the model refused 1 edit(s) that pass the tests",
      review: { verdict: "refused", reason: "last(C(), []) would return []" },
    });
    const report = renderReport(o, { title: "t" });
    expect(report).toContain(
      "**Not fixed** (the model refused every mechanical edit that passed the tests, `refused`)",
    );
    expect(report).toContain(
      "The model's review refused a mechanical edit that passes the tests: last(C(), []) would return []",
    );
  });
});

describe("the commit message", () => {
  it("says what changed and links the issue", () => {
    const message = fixCommitMessage(lpwFix(), {
      subject: "Fix #1001: last() fails when __reversed__ is None",
      issueNumber: 1001,
    });
    expect(message).toBe(
      "Fix #1001: last() fails when __reversed__ is None\n\nWhat changed (more_itertools/more.py, tests/test_repro.py):\n- Treat __reversed__ = None as not reversible\n\nChecked by autogen-bot: fixed (visible tests after the change: 1 passed, 0 failed).\n\nFixes #1001\n",
    );
  });

  it("a model's edit with neither plan nor template: the changed lines, and without an issue the tests it makes pass", () => {
    const o = lpwFix();
    o.plan.steps = undefined;
    o.changedFiles = ["calc/ops.py"];
    o.diff =
      "--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,5 +1,5 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n \n \n def sub(a, b):\n";
    expect(fixCommitMessage(o, {})).toBe(
      "return a - b → return a + b in calc/ops.py\n\nWhat changed (calc/ops.py):\n- calc/ops.py:2: return a - b → return a + b\n\nChecked by autogen-bot: fixed (visible tests after the change: 1 passed, 0 failed).\nMakes pass: tests/test_repro.py::test_none\n",
    );
    // Many lines: the first three of a file, and how many more; an issue's link instead of the test list.
    o.diff = `--- a/calc/ops.py\n+++ b/calc/ops.py\n@@ -1,5 +1,5 @@\n${["a", "b", "c", "d", "e"].map((x) => `-${x} = 1`).join("\n")}\n${["a", "b", "c", "d", "e"].map((x) => `+${x} = 2`).join("\n")}\n`;
    const many = fixCommitMessage(o, { issueNumber: 7 });
    expect(many).toContain(
      "Change calc/ops.py\n\nWhat changed (calc/ops.py):\n- calc/ops.py:1: a = 1 → a = 2\n- calc/ops.py:2: b = 1 → b = 2\n- calc/ops.py:3: c = 1 → c = 2\n- calc/ops.py: 2 more changed line(s)\n",
    );
    expect(many).not.toContain("Makes pass");
    expect(many).toContain("\n\nFixes #7\n");
  });

  it("without an issue title the subject is the change itself", () => {
    const o = lpwFix();
    o.plan.steps = undefined;
    o.plan.fix = { family: "operator", description: "`+` → `-`", file: "shop/cart.py", line: 3, score: 1 };
    expect(fixCommitMessage(o, {}).split("\n")[0]).toBe("+ → - in shop/cart.py");
  });
});
