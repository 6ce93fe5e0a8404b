// The repository-level benchmark in bench/local-tasks: every task is what it claims (the
// buggy repository fails its hidden tests, the reference fix passes them), and every LLM
// strategy's control flow on two of its tasks through `autogen eval --dataset local:`,
// with scripted model answers over HTTP, recorded and then replayed offline.
import { mkdir, mkdtemp, readdir, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { checkLocalTask } from "../../src/eval/check-local-task.ts";
import { loadLocalTasks } from "../../src/eval/local-task-loader.ts";
import { evalSandbox } from "../../src/eval/run-eval-task.ts";
import { readTranscript } from "../../src/llm/transcript.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers, type ScriptedAnswer } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const BENCH = fileURLToPath(new URL("../../bench/local-tasks", import.meta.url));
const SANDBOX = evalSandbox({ testTimeoutMs: 30_000, perTestTimeoutSeconds: 2 });

describe("the local benchmark", { timeout: 240_000 }, () => {
  it("has at least 8 multi-file tasks in Python and JavaScript, kept apart from their hidden tests and reference fixes", async () => {
    const tasks = await loadLocalTasks(BENCH);
    expect(tasks.length).toBeGreaterThanOrEqual(8);
    for (const task of tasks) {
      expect(task.issue, task.id).toBeTruthy();
      expect(task.visibleFromBaseline).toBe(true);
      expect(task.solutionFiles.length, `${task.id} is multi-file`).toBeGreaterThanOrEqual(3);
      // Nothing of the hidden tests or the reference fix is in the repository the engine sees.
      expect(
        Object.keys(task.files).some((f) => f.startsWith("hidden/") || f.startsWith("reference/") || f === "issue.md"),
      ).toBe(false);
      for (const [path, text] of Object.entries(task.referenceFiles ?? {}))
        expect(task.files[path], `${task.id} ${path}`).not.toBe(text);
    }
    const languages = tasks.map((t) => (Object.keys(t.files).includes("package.json") ? "js" : "py"));
    expect(languages.filter((l) => l === "py").length).toBeGreaterThanOrEqual(3);
    expect(languages.filter((l) => l === "js").length).toBeGreaterThanOrEqual(3);
  });

  it("every task is solvable: the buggy code fails the hidden tests, the reference fix passes them and the visible suite; most are issue-only", async () => {
    const checks = [];
    for (const task of await loadLocalTasks(BENCH)) checks.push(await checkLocalTask(task, SANDBOX));
    expect(checks.filter((c) => c.problems.length > 0).map((c) => `${c.id}: ${c.problems.join("; ")}`)).toEqual([]);
    const issueOnly = checks.filter((c) => c.kind === "issue-only").map((c) => c.id);
    const red = checks.filter((c) => c.kind === "red").map((c) => c.id);
    expect(issueOnly.length).toBeGreaterThan(red.length);
    expect(red.length).toBeGreaterThanOrEqual(2);
  });

  it("`eval --check` names a task whose reference fix does not fix it, and one with nothing that shows its bug", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-bench-check-"));
    const write = async (path: string, text: string) => {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    };
    await write("wrong-ref/repo/calc.py", "def add(a, b):\n    return a - b\n");
    await write("wrong-ref/repo/test_calc.py", "from calc import add\n\ndef test_zero():\n    assert add(0, 0) == 0\n");
    await write(
      "wrong-ref/hidden/test_hidden.py",
      "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    );
    await write("wrong-ref/reference/calc.py", "def add(a, b):\n    return a * b\n");
    await write("wrong-ref/issue.md", "add(2, 3) is -1\n");
    await write("no-issue/repo/calc.py", "def add(a, b):\n    return a - b\n");
    await write("no-issue/repo/test_calc.py", "from calc import add\n\ndef test_zero():\n    assert add(0, 0) == 0\n");
    await write(
      "no-issue/hidden/test_hidden.py",
      "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n",
    );
    await write("no-issue/reference/calc.py", "def add(a, b):\n    return a + b\n");
    const { code, stdout } = await runCli(["eval", "--dataset", `local:${dir}`, "--check"]);
    expect(code).toBe(1);
    expect(stdout).toContain(
      "BAD  no-issue (issue-only): visible 1 passed, 0 failed -> 1 passed, 0 failed; hidden 0 passed, 1 failed -> 1 passed, 0 failed\n     every visible test passes and there is no issue.md: nothing shows the bug",
    );
    expect(stdout).toContain("BAD  wrong-ref (issue-only)");
    expect(stdout).toContain("the reference fix fails the hidden tests (0 passed, 1 failed)");
    expect(stdout).toContain("0 of 2 tasks check out");
  });
});

// Two issue-only tasks: the model reproduces the money formatter's bug and fixes it; the
// argument parser's bug it never reproduces (each test it writes passes on the buggy code).
const MONEY_TEST = {
  path: "tests/test_negative_refund.py",
  content:
    'from moneyfmt import format_money\n\n\ndef test_refund_has_sign_before_symbol():\n    assert format_money(-1234.5) == "-$1,234.50"\n',
  expectedFailure: "AssertionError: '$-1,234.50' != '-$1,234.50'",
};
const MONEY_FIX = {
  edits: [
    {
      kind: "replace",
      path: "moneyfmt/format.py",
      search: '    whole, _, fraction = f"{value:f}".partition(".")',
      replace: '    sign = "-" if value < 0 else ""\n    whole, _, fraction = f"{abs(value):f}".partition(".")',
    },
    {
      kind: "replace",
      path: "moneyfmt/format.py",
      search: '    return f"{symbol}{text}"',
      replace: '    return f"{sign}{symbol}{text}"',
    },
  ],
};
const ARGS_TESTS = [5, 7, 9].map((n) => ({
  path: "test/retries-value.test.js",
  content: `import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { parseArgs } from "../src/index.js";\n\ntest("retries value is kept", () => {\n  assert.equal(parseArgs(["--retries", "${n}"], { retries: { type: "number", default: 3 } }).retries, ${n});\n});\n`,
  expectedFailure: `expected ${n}, got 3`,
}));
const PLAN = {
  steps: [
    "Take the sign off the quantised amount",
    "Group the digits of its absolute value",
    "Put the sign before the currency symbol",
  ],
};
const VERIFIED = {
  tests: [
    {
      test: "test_refund_has_sign_before_symbol",
      steps: [
        { step: 1, value: "sign '-', value 1234.50" },
        { step: 3, value: "-$1,234.50" },
      ],
      derived: "-$1,234.50",
      expected: "-$1,234.50",
      matches: true,
    },
  ],
};

/** The reproduction test with the calls the behaviour table runs once a fix passes (a post-check eval runs too). */
const MONEY_REPRO: ScriptedAnswer = {
  stage: "reproduce",
  content: {
    ...MONEY_TEST,
    behaviour: {
      module: "moneyfmt",
      calls: [
        { call: "format_money(-1234.5)", expected: "'-$1,234.50'", why: "the case the issue reports" },
        { call: "format_money(1234.5)", expected: "unspecified", why: "a positive amount behaves as before" },
      ],
    },
  },
};

const notReproduced: ScriptedAnswer[] = ARGS_TESTS.map((content) => ({ stage: "reproduce", content }));
/** Each strategy's answers on the money task, with the default configuration (SLPW samples 6 plans and carries 3 verified ones). */
const fixed: Record<string, ScriptedAnswer[]> = {
  lpw: [
    MONEY_REPRO,
    // No localize call: the symbols the context is built from fit without the model narrowing them.
    { stage: "plan", content: PLAN },
    { stage: "verify-plan", content: VERIFIED },
    { stage: "implement", content: MONEY_FIX },
  ],
  slpw: [
    MONEY_REPRO,
    ...Array.from({ length: 6 }, () => ({ stage: "plan", content: PLAN })),
    ...Array.from({ length: 3 }, () => ({ stage: "verify-plan", content: VERIFIED })),
    { stage: "implement", content: MONEY_FIX },
  ],
  seidr: [MONEY_REPRO, { stage: "generate", content: MONEY_FIX }],
  direct: [MONEY_REPRO, { stage: "generate", content: MONEY_FIX }],
};
const STRATEGIES = ["lpw", "slpw", "seidr", "direct"] as const;

type Result = {
  id: string;
  strategy: string;
  verdict: string;
  stopReason: string;
  message: string;
  cost: { llmCalls: number; candidatesTried: number };
  search?: { kind: string; drafts?: Array<{ score: number }> };
};

describe("every strategy's control flow on the local benchmark, with scripted answers", { timeout: 600_000 }, () => {
  it("reproduce → plan → verify → fix on one task and could-not-reproduce on another, recorded and replayed offline", async () => {
    // Tasks run in name order, one at a time: js-args-zero, then py-money-negative, for each strategy in turn.
    scriptAnswers(STRATEGIES.flatMap((s) => [...notReproduced, ...fixed[s]!]));
    const transcripts = await mkdtemp(join(tmpdir(), "autogen-bench-transcripts-"));
    const common = [
      "eval",
      "--dataset",
      `local:${BENCH}`,
      "--task",
      "py-money-negative,js-args-zero",
      "--strategy",
      `template,${STRATEGIES.join(",")}`,
      "--concurrency",
      "1",
    ];
    const recordedOut = await mkdtemp(join(tmpdir(), "autogen-bench-rec-"));
    const recorded = await runCli([...common, "--transcripts", transcripts, "--out", recordedOut], {
      env: { AUTOGEN_LLM_BASE_URL: LLM_BASE },
    });
    expect(recorded.stderr).toBe("");
    expect(recorded.code).toBe(0);

    const results = async (dir: string) =>
      (JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as { results: Result[] }).results;
    const byKey = (rows: Result[]) =>
      Object.fromEntries(
        rows.map((r) => [
          `${r.strategy} ${r.id}`,
          { verdict: r.verdict, stopReason: r.stopReason, llmCalls: r.cost.llmCalls },
        ]),
      );
    const rows = await results(recordedOut);
    expect(byKey(rows)).toEqual({
      // Without a model an issue whose tests pass cannot be reproduced: the template strategy does not start.
      "template js-args-zero": { verdict: "not-fixed", stopReason: "nothing-to-fix", llmCalls: 0 },
      "template py-money-negative": { verdict: "not-fixed", stopReason: "nothing-to-fix", llmCalls: 0 },
      ...Object.fromEntries(
        STRATEGIES.flatMap((s) => [
          [`${s} js-args-zero`, { verdict: "not-fixed", stopReason: "not-reproduced", llmCalls: 3 }],
          [`${s} py-money-negative`, { verdict: "solved", stopReason: "solved", llmCalls: fixed[s]!.length }],
        ]),
      ),
    });
    const args = rows.find((r) => r.strategy === "lpw" && r.id === "js-args-zero");
    expect(args?.message).toBe(
      "could not reproduce: all 3 tests the model wrote were rejected; the last: its test(s) pass on the unchanged code (test/retries-value.test.js > test > retries value is kept), so they do not show the bug",
    );

    // What SLPW's and SEIDR's search chose, kept with the task's result and printed under its line.
    const searchOf = (strategy: string) =>
      rows.find((r) => r.strategy === strategy && r.id === "py-money-negative")?.search;
    expect(searchOf("slpw")).toMatchObject({
      kind: "slpw",
      samples: 6,
      distinct: 1,
      implemented: ["p1"],
      chosen: "p1",
    });
    expect(searchOf("seidr")).toMatchObject({ kind: "seidr", drafts: [{ score: 1 }], generations: [] });
    expect(searchOf("lpw")).toBeUndefined();
    expect(recorded.stdout).toContain("      SLPW sampled 6 plan(s), 1 distinct.");
    expect(recorded.stdout).toContain("the fix is the program of plan `p1`.");
    expect(await readFile(join(recordedOut, "results.md"), "utf8")).toContain("### Search: seidr py-money-negative");

    // The stages each strategy went through, as its transcripts recorded them.
    const stages = async (strategy: string, task: string) =>
      readTranscript(join(transcripts, strategy, `${task}.jsonl`)).map((e) => e.stage);
    for (const s of STRATEGIES) {
      expect(await stages(s, "js-args-zero")).toEqual(["reproduce", "reproduce", "reproduce"]);
      expect(await stages(s, "py-money-negative")).toEqual(fixed[s]!.map((a) => a.stage));
    }
    // The second reproduction attempt was told why the first was rejected.
    const second = readTranscript(join(transcripts, "direct", "js-args-zero.jsonl"))[1];
    expect(second?.messages.at(-1)?.content).toContain(
      "Attempt 1 was rejected: its test(s) pass on the unchanged code (test/retries-value.test.js > test > retries value is kept)",
    );
    expect(await readdir(join(transcripts, "template")).catch(() => [])).toEqual([]);

    // Offline, from the transcripts alone: the same control flow and the same verdicts.
    const replayedOut = await mkdtemp(join(tmpdir(), "autogen-bench-rep-"));
    const replayed = await runCli([...common, "--replay", transcripts, "--out", replayedOut], { env: {} });
    expect(replayed.code).toBe(0);
    expect(byKey(await results(replayedOut))).toEqual(byKey(rows));
  });
});
