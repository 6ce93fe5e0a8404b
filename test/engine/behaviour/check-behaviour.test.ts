// The behaviour table on a fix: the model (scripted over HTTP) writes calls from the issue,
// the harness runs them with real Python in the sandbox on the code before and after the
// change, and the table's flags decide the verdict: an unrequested change is flagged (the
// fix needs a reviewer), an output that is not the issue's makes the fix not fixed.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { behaviourRequest } from "../../../src/engine/behaviour/behaviour-calls.ts";
import { behaviourLanguage } from "../../../src/engine/behaviour/behaviour-language.ts";
import { checkBehaviour } from "../../../src/engine/behaviour/check-behaviour.ts";
import { emptyOutcome, type Outcome } from "../../../src/engine/task.ts";
import { fixedWord, isUnreviewed } from "../../../src/engine/review/review-fix.ts";
import { renderReport } from "../../../src/report/render-report.ts";
import { unifiedDiff } from "../../../src/workspace/unified-diff.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { PYTEST_ENV, writeRepo } from "../../support/python-task.ts";

useHttpMock();

// The bug: last() of an empty list raises IndexError; the issue asks for the default.
const BEFORE = [
  "def last(items, default=None):",
  "    if len(items) == 0:",
  "        raise IndexError('empty')",
  "    return items[-1]",
  "",
].join("\n");
// A fix that also changes an input the issue says nothing about: a one-element list.
const OVERREACHING = [
  "def last(items, default=None):",
  "    if len(items) <= 1:",
  "        return default",
  "    return items[-1]",
  "",
].join("\n");
const RIGHT = [
  "def last(items, default=None):",
  "    if len(items) == 0:",
  "        return default",
  "    return items[-1]",
  "",
].join("\n");
const ISSUE = "last([]) raises IndexError; it should return the default (None unless given).";
const CALLS = {
  module: "seq.core",
  calls: [
    { call: "last([])", expected: "None", why: "the case the issue reports" },
    { call: "last([], default=7)", expected: "7", why: "the default the issue names" },
    { call: "last([4])", expected: "unspecified", why: "one element must behave as before" },
    { call: "last([1, 2, 3])", expected: "unspecified", why: "the ordinary case" },
  ],
};
const SANDBOX = { timeoutMs: 60_000, env: PYTEST_ENV };

async function fixedOutcome(after: string): Promise<{ dir: string; outcome: Outcome }> {
  const dir = await writeRepo({ "seq/__init__.py": "", "seq/core.py": after });
  const outcome: Outcome = {
    ...emptyOutcome("lpw"),
    status: "fixed",
    stopReason: "solved",
    message: "last() returns its default for an empty list",
    diff: unifiedDiff("seq/core.py", BEFORE, after),
    changedFiles: ["seq/core.py"],
  };
  return { dir, outcome };
}

async function check(after: string, answer: unknown = CALLS) {
  const { dir, outcome } = await fixedOutcome(after);
  const { requests } = scriptAnswers([{ stage: "behaviour-calls", content: answer }]);
  const llm = testLlm();
  await checkBehaviour(outcome, { workspace: dir, llm, problem: ISSUE, runnerName: "pytest", sandbox: SANDBOX });
  return { dir, outcome, requests };
}

describe("the behaviour table", { timeout: 300_000 }, () => {
  it("flags an output the fix changed where the issue asked for nothing: fixed, but a reviewer is needed", async () => {
    const { dir, outcome, requests } = await check(OVERREACHING);
    expect(outcome.status).toBe("fixed");
    expect(outcome.behaviour).toEqual({
      kind: "table",
      module: "seq.core",
      written: "after-fix",
      rows: [
        { ...CALLS.calls[0], before: "raises IndexError: empty", after: "None", expected: "None", flag: "ok" },
        { ...CALLS.calls[1], before: "raises IndexError: empty", after: "7", expected: "7", flag: "ok" },
        { ...CALLS.calls[2], before: "4", after: "None", expected: "unspecified", flag: "unrequested" },
        { ...CALLS.calls[3], before: "3", after: "3", expected: "unspecified", flag: "ok" },
      ],
    });
    expect(isUnreviewed(outcome)).toBe(true);
    expect(fixedWord(outcome)).toBe("fixed; 1 output change(s) the issue did not ask for");
    // The model saw the issue and the diff.
    const prompt = requests[0]?.messages.map((m) => m.content).join("\n") ?? "";
    expect(prompt).toContain(ISSUE);
    expect(prompt).toContain("+    if len(items) <= 1:");
    // The worktree is untouched: the calls ran in copies.
    expect(await readFile(join(dir, "seq/core.py"), "utf8")).toBe(OVERREACHING);
    const report = renderReport(outcome, { title: "last() of an empty list" });
    expect(report).toContain("> [!WARNING]");
    expect(report).toContain("| | Input | Before | After | Expected by the issue |");
    expect(report).toContain("| ⚠️ | <code>last([4])</code> | <code>4</code> | <code>None</code> | unspecified |");
    expect(report).toContain(
      "| ✅ | <code>last([])</code> | <code>raises IndexError: empty</code> | <code>None</code> | <code>None</code> |",
    );
    expect(report).toContain("- ⚠️ 1 output(s) changed where the issue asked for no change");
  });

  it("every output as the issue expects and nothing else changed: fixed, no flag", async () => {
    const { outcome } = await check(RIGHT);
    expect(outcome.status).toBe("fixed");
    const rows = outcome.behaviour?.kind === "table" ? outcome.behaviour.rows : [];
    expect(rows.map((r) => [r.before, r.after, r.flag])).toEqual([
      ["raises IndexError: empty", "None", "ok"],
      ["raises IndexError: empty", "7", "ok"],
      ["4", "4", "ok"],
      ["3", "3", "ok"],
    ]);
    expect(isUnreviewed(outcome)).toBe(false);
    expect(fixedWord(outcome)).toBe("fixed");
    const report = renderReport(outcome, { title: "last() of an empty list" });
    expect(report).toContain("| = | <code>last([4])</code> | <code>4</code> | <code>4</code> | unspecified |");
    expect(report).toContain("- ✅ Every output is what the issue expects, or unchanged where the issue says nothing.");
    expect(report).not.toContain("[!WARNING]");
  });

  it("calls that came with the reproduction test are run as they are: no model call, the same verdicts", async () => {
    const { dir, outcome } = await fixedOutcome(RIGHT.replace("return default", "return []"));
    const python = behaviourLanguage("pytest");
    if (!python) throw new Error("pytest has a behaviour harness");
    const request = behaviourRequest(CALLS, python);
    if ("reason" in request) throw new Error(request.reason);
    outcome.issueCalls = { kind: "calls", request };
    // No answer is scripted: a model call would fail the test (an unmatched request).
    await checkBehaviour(outcome, {
      workspace: dir,
      llm: testLlm(),
      problem: ISSUE,
      runnerName: "pytest",
      sandbox: SANDBOX,
    });
    expect(outcome).toMatchObject({
      status: "not-fixed",
      stopReason: "contradicts-issue",
      behaviour: { kind: "table", written: "before-fix" },
    });
    expect(outcome.cost.llmCalls).toBe(0);
    expect(outcome.message).toContain("`last([])` gives [], the issue expects None");
    const report = renderReport(outcome, { title: "last() of an empty list" });
    expect(report).toContain("from the issue with the reproduction test, before any fix existed;");
  });

  it("an output that is not what the issue expects: not fixed, the diff kept as the closest attempt", async () => {
    const wrong = RIGHT.replace("return default", "return []");
    const { outcome } = await check(wrong);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "contradicts-issue" });
    expect(outcome.message).toContain("`last([])` gives [], the issue expects None");
    expect(outcome.closestAttempt?.diff).toContain("+        return []");
    const report = renderReport(outcome, { title: "last() of an empty list" });
    expect(report).toContain("**Not fixed** (the change passes the tests but not the issue's own examples");
    expect(report).toContain("| ❌ | <code>last([])</code>");
  });

  it("hostile calls run in the sandbox only, each stopped by its time limit or its own error", async () => {
    const answer = {
      module: "seq.core",
      calls: [
        { call: "open('/etc/hostname').read() and __import__('os').getcwd()", expected: "unspecified", why: "probe" },
        { call: "[x for x in iter(int, 1)]", expected: "unspecified", why: "never ends" },
        { call: "import os", expected: "unspecified", why: "a statement" },
        { call: "__import__('os').environ.get('OPENAI_API_KEY', 'hidden')", expected: "'hidden'", why: "secret" },
      ],
    };
    process.env.OPENAI_API_KEY = "sk-host-secret";
    try {
      const { outcome } = await check(RIGHT, answer);
      const rows = outcome.behaviour?.kind === "table" ? outcome.behaviour.rows : [];
      expect(rows[1]).toMatchObject({ before: "timed out", after: "timed out", flag: "ok" });
      expect(rows[2]?.after).toMatch(/^not run: not a Python expression/);
      expect(rows[3]).toMatchObject({ after: "'hidden'", flag: "ok" });
      // The call ran in a copy, not in the worktree.
      expect(rows[0]?.after).not.toContain("autogen-pyrepo-");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("without a model there is no table, and the report says why", async () => {
    const { dir, outcome } = await fixedOutcome(RIGHT);
    await checkBehaviour(outcome, {
      workspace: dir,
      llm: undefined,
      problem: ISSUE,
      runnerName: "pytest",
      sandbox: SANDBOX,
    });
    expect(outcome.behaviour).toEqual({
      kind: "none",
      reason: "no model is configured to write inputs from the issue",
    });
    expect(outcome.status).toBe("fixed");
    expect(renderReport(outcome, { title: "t" })).toContain(
      "No behaviour table: no model is configured to write inputs from the issue.",
    );
  });

  it("a package that exports a function of its own name (tabulate's tabulate): a call names the function, not the package", async () => {
    const dir = await writeRepo({ "last/__init__.py": RIGHT });
    const outcome: Outcome = {
      ...emptyOutcome("lpw"),
      status: "fixed",
      stopReason: "solved",
      message: "last() returns its default for an empty list",
      diff: unifiedDiff("last/__init__.py", BEFORE, RIGHT),
      changedFiles: ["last/__init__.py"],
    };
    scriptAnswers([{ stage: "behaviour-calls", content: { ...CALLS, module: "last" } }]);
    await checkBehaviour(outcome, {
      workspace: dir,
      llm: testLlm(),
      problem: ISSUE,
      runnerName: "pytest",
      sandbox: SANDBOX,
    });
    // Before: every call raised "TypeError: 'module' object is not callable", read as contradicting the issue.
    const rows = outcome.behaviour?.kind === "table" ? outcome.behaviour.rows : [];
    expect(rows.map((r) => [r.before, r.after, r.flag])).toEqual([
      ["raises IndexError: empty", "None", "ok"],
      ["raises IndexError: empty", "7", "ok"],
      ["4", "4", "ok"],
      ["3", "3", "ok"],
    ]);
    expect(outcome.status).toBe("fixed");
  });

  it("a module the model named that does not import: no table, the reason, the fix unchanged", async () => {
    const { outcome } = await check(RIGHT, { ...CALLS, module: "seq.nowhere" });
    expect(outcome.status).toBe("fixed");
    expect(outcome.behaviour).toMatchObject({ kind: "none" });
    expect(outcome.behaviour?.kind === "none" ? outcome.behaviour.reason : "").toContain(
      "importing seq.nowhere failed: ModuleNotFoundError",
    );
  });
});
