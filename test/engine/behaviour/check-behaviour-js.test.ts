// The behaviour table on a JavaScript fix: the model (scripted over HTTP) writes calls from
// the issue, the Node harness (resources/node/autogen-behaviour.mjs) runs them with real
// Node in the sandbox on copies of the code before and after the change, loading the module
// by its path (ESM by import(), CommonJS by require, TypeScript by node's type stripping),
// and the table's flags decide the verdict as they do for Python.
import { existsSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { checkBehaviour } from "../../../src/engine/behaviour/check-behaviour.ts";
import { emptyOutcome, type Outcome } from "../../../src/engine/task.ts";
import { fixedWord, isUnreviewed } from "../../../src/engine/review/review-fix.ts";
import { renderReport } from "../../../src/report/render-report.ts";
import { unifiedDiff } from "../../../src/workspace/unified-diff.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { writeRepo } from "../../support/python-task.ts";

useHttpMock();

// The bug: last() of an empty array throws; the issue asks for the fallback.
const BEFORE = [
  "export function last(items, fallback = undefined) {",
  '  if (items.length === 0) throw new RangeError("empty");',
  "  return items[items.length - 1];",
  "}",
  "",
].join("\n");
// A fix that also changes an input the issue says nothing about: a one-element array.
const OVERREACHING = BEFORE.replace(
  '  if (items.length === 0) throw new RangeError("empty");',
  "  if (items.length <= 1) return fallback;",
);
const RIGHT = BEFORE.replace(
  '  if (items.length === 0) throw new RangeError("empty");',
  "  if (items.length === 0) return fallback;",
);
const ISSUE = "last([]) throws RangeError; it should return the fallback (undefined unless given).";
const CALLS = {
  module: "src/last.js",
  calls: [
    { call: "last([])", expected: "undefined", why: "the case the issue reports" },
    { call: "last([], 7)", expected: "7", why: "the fallback the issue names" },
    { call: "last([4])", expected: "unspecified", why: "one element must behave as before" },
    { call: "last([1, 2, { a: 3 }])", expected: "unspecified", why: "the ordinary case" },
  ],
};
const SANDBOX = { timeoutMs: 120_000 };
const PACKAGE = JSON.stringify({ name: "seq", type: "module", scripts: { test: "node --test" } });

async function fixedOutcome(
  after: string,
  files: { path: string; before: string; extra?: Record<string, string> } = { path: "src/last.js", before: BEFORE },
): Promise<{ dir: string; outcome: Outcome }> {
  const dir = await writeRepo({ "package.json": PACKAGE, ...files.extra, [files.path]: after });
  const outcome: Outcome = {
    ...emptyOutcome("lpw"),
    status: "fixed",
    stopReason: "solved",
    message: "last() returns its fallback for an empty array",
    diff: unifiedDiff(files.path, files.before, after),
    changedFiles: [files.path],
  };
  return { dir, outcome };
}

async function check(after: string, answer: unknown = CALLS, runnerName = "node-test") {
  const { dir, outcome } = await fixedOutcome(after);
  const { requests } = scriptAnswers([{ stage: "behaviour-calls", content: answer }]);
  await checkBehaviour(outcome, { workspace: dir, llm: testLlm(), problem: ISSUE, runnerName, sandbox: SANDBOX });
  return { dir, outcome, requests };
}

const rowsOf = (outcome: Outcome) => (outcome.behaviour?.kind === "table" ? outcome.behaviour.rows : []);

describe("the behaviour table on JavaScript", { timeout: 300_000 }, () => {
  it("flags an output the fix changed where the issue asked for nothing: fixed, but a reviewer is needed", async () => {
    const { dir, outcome, requests } = await check(OVERREACHING);
    expect(outcome.status).toBe("fixed");
    expect(outcome.behaviour).toEqual({
      kind: "table",
      module: "src/last.js",
      written: "after-fix",
      rows: [
        {
          ...CALLS.calls[0],
          before: "raises RangeError: empty",
          after: "undefined",
          expected: "undefined",
          flag: "ok",
        },
        { ...CALLS.calls[1], before: "raises RangeError: empty", after: "7", expected: "7", flag: "ok" },
        { ...CALLS.calls[2], before: "4", after: "undefined", expected: "unspecified", flag: "unrequested" },
        { ...CALLS.calls[3], before: "{ a: 3 }", after: "{ a: 3 }", expected: "unspecified", flag: "ok" },
      ],
    });
    expect(isUnreviewed(outcome)).toBe(true);
    expect(fixedWord(outcome)).toBe("fixed; 1 output change(s) the issue did not ask for");
    // The model was asked for JavaScript calls on a file, shown the issue and the diff.
    const prompt = requests[0]?.messages.map((m) => m.content).join("\n") ?? "";
    expect(prompt).toContain("Each call is one JavaScript expression");
    expect(prompt).toContain("relative to the repository root");
    expect(prompt).toContain(ISSUE);
    expect(prompt).toContain("+  if (items.length <= 1) return fallback;");
    expect(await readFile(join(dir, "src/last.js"), "utf8")).toBe(OVERREACHING);
    const report = renderReport(outcome, { title: "last() of an empty array" });
    expect(report).toContain("| ⚠️ | <code>last([4])</code> | <code>4</code> | <code>undefined</code> | unspecified |");
  });

  it("every output as the issue expects and nothing else changed: fixed, no flag", async () => {
    const { outcome } = await check(RIGHT);
    expect(outcome.status).toBe("fixed");
    expect(rowsOf(outcome).map((r) => [r.before, r.after, r.flag])).toEqual([
      ["raises RangeError: empty", "undefined", "ok"],
      ["raises RangeError: empty", "7", "ok"],
      ["4", "4", "ok"],
      ["{ a: 3 }", "{ a: 3 }", "ok"],
    ]);
    expect(isUnreviewed(outcome)).toBe(false);
    expect(fixedWord(outcome)).toBe("fixed");
  });

  it("an output that is not what the issue expects: not fixed, the diff kept as the closest attempt", async () => {
    const wrong = RIGHT.replace("return fallback;", "return null;");
    const { outcome } = await check(wrong);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "contradicts-issue" });
    expect(outcome.message).toContain("`last([])` gives null, the issue expects undefined");
    expect(outcome.closestAttempt?.diff).toContain("+  if (items.length === 0) return null;");
  });

  it("hostile calls: a statement refused unrun, a blocked or endless call stopped, no host secret, only a copy touched", async () => {
    const answer = {
      module: "src/last.js",
      calls: [
        { call: "while (true) {}", expected: "unspecified", why: "a statement" },
        { call: "(() => { for (;;); })()", expected: "unspecified", why: "a loop in a function body" },
        {
          call: "Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0)",
          expected: "unspecified",
          why: "blocks",
        },
        { call: "new Promise(() => {})", expected: "unspecified", why: "never settles" },
        { call: "process.env.OPENAI_API_KEY ?? 'hidden'", expected: "'hidden'", why: "a secret" },
        {
          call: "process.getBuiltinModule('node:fs').writeFileSync('src/last.js', 'export const last = 0;\\n') ?? process.cwd()",
          expected: "unspecified",
          why: "writes",
        },
        { call: "last([1, 2])", expected: "2", why: "the module still runs after the writes and the stops" },
      ],
    };
    process.env.OPENAI_API_KEY = "sk-host-secret";
    try {
      const { dir, outcome } = await check(RIGHT, answer);
      const rows = rowsOf(outcome);
      expect(rows[0]?.after).toMatch(/^not run: not a JavaScript expression/);
      expect(rows[1]?.after).toBe("not run: not a JavaScript expression: a function or class body with statements");
      expect(rows[2]).toMatchObject({ before: "timed out", after: "timed out", flag: "ok" });
      expect(rows[3]).toMatchObject({ before: "timed out", after: "timed out", flag: "ok" });
      expect(rows[4]).toMatchObject({ before: "'hidden'", after: "'hidden'", flag: "ok" });
      // The write went to a scratch copy: its working directory is not the worktree, whose file is unchanged.
      expect(rows[5]?.after).toMatch(/autogen-after-/);
      expect(rows[5]?.after).not.toContain(dir);
      expect(await readFile(join(dir, "src/last.js"), "utf8")).toBe(RIGHT);
      expect(rows[6]).toMatchObject({ before: "2", after: "2", flag: "ok" });
      expect(outcome.status).toBe("fixed");
    } finally {
      delete process.env.OPENAI_API_KEY;
    }
  });

  it("CommonJS by require (the module itself as `mod`) and TypeScript by node's type stripping", async () => {
    const cjsBefore = "module.exports = function last(items) {\n  return items[items.length - 1];\n};\n";
    const cjsAfter =
      "module.exports = function last(items, fallback) {\n  return items.length ? items[items.length - 1] : fallback;\n};\n";
    const cjs = await fixedOutcome(cjsAfter, {
      path: "lib/last.cjs",
      before: cjsBefore,
    });
    scriptAnswers([
      {
        stage: "behaviour-calls",
        content: {
          module: "./lib/last.cjs",
          calls: [
            { call: "mod([], 0)", expected: "0", why: "the issue's case" },
            { call: "typeof require", expected: "unspecified", why: "loaded by require" },
          ],
        },
      },
    ]);
    await checkBehaviour(cjs.outcome, { ...inputOf(cjs.dir), runnerName: "jest" });
    expect(rowsOf(cjs.outcome).map((r) => [r.before, r.after, r.flag])).toEqual([
      ["undefined", "0", "ok"],
      ["'undefined'", "'undefined'", "ok"],
    ]);

    const tsBefore = "export function double(n: number): number {\n  return n + n + 1;\n}\n";
    const tsAfter = "export function double(n: number): number {\n  return n + n;\n}\n";
    const ts = await fixedOutcome(tsAfter, { path: "src/double.ts", before: tsBefore });
    scriptAnswers([
      {
        stage: "behaviour-calls",
        content: { module: "src/double.ts", calls: [{ call: "double(2)", expected: "4", why: "the issue's case" }] },
      },
    ]);
    await checkBehaviour(ts.outcome, { ...inputOf(ts.dir), runnerName: "vitest" });
    expect(rowsOf(ts.outcome).map((r) => [r.before, r.after, r.flag])).toEqual([["5", "4", "ok"]]);
    expect(ts.outcome.status).toBe("fixed");
  });

  it("a file the model named that is not there: no table, the reason, the fix unchanged; a path outside: refused", async () => {
    const { outcome } = await check(RIGHT, { ...CALLS, module: "src/nowhere.js" });
    expect(outcome.status).toBe("fixed");
    expect(outcome.behaviour?.kind === "none" ? outcome.behaviour.reason : "").toContain(
      "importing src/nowhere.js failed",
    );
    const outside = await check(RIGHT, { ...CALLS, module: "../../etc/passwd.js" });
    expect(outside.outcome.behaviour).toEqual({
      kind: "none",
      reason: 'the model named no JavaScript file in the repository ("../../etc/passwd.js")',
    });
    expect(existsSync(join(outside.dir, "src/last.js"))).toBe(true);
  });
});

function inputOf(dir: string) {
  return { workspace: dir, llm: testLlm(), problem: ISSUE, sandbox: SANDBOX };
}
