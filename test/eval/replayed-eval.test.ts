// An evaluation run with an LLM strategy, recorded (answers scripted over HTTP) and then
// replayed offline from its transcripts: the same table, and counts that match the
// transcripts line for line. Each fix then goes through the post-checks every door runs:
// the model writes calls from the task, and the behaviour table is on the task's result.
import { mkdtemp, readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { loadHumanEvalFix } from "../../src/eval/humanevalfix-loader.ts";
import { readTranscript } from "../../src/llm/transcript.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const SAMPLE = fileURLToPath(new URL("../fixtures/humanevalfix/sample.jsonl", import.meta.url));

// The calls the model writes for each of the three fixes (the behaviour table), from the tasks' own examples.
const BEHAVIOUR = [
  [
    { call: "truncate_number(3.5)", expected: "0.5", why: "the task's example" },
    { call: "truncate_number(1.25)", expected: "unspecified", why: "a neighbouring input" },
  ],
  [
    { call: "longest(['a', 'bb', 'ccc'])", expected: "'ccc'", why: "the task's example" },
    { call: "longest([])", expected: "None", why: "the empty case" },
  ],
  [{ call: "count_distinct_characters('Jerry')", expected: "4", why: "the task's example" }],
];

type Summary = {
  tasks: number;
  solved: number;
  plausible: number;
  notFixed: number;
  llmCalls: number;
  promptTokensPerTask: number;
};

describe("a replayed evaluation", () => {
  it("reproduces the recorded run offline, with counts that match the transcripts", async () => {
    // One `generate` answer per task, in task order (concurrency 1): the first three get
    // the canonical body, the last two a wrong one.
    const rows = await loadHumanEvalFix(SAMPLE);
    scriptAnswers(BEHAVIOUR.map((calls) => ({ stage: "behaviour-calls", content: { module: "solution", calls } })));
    scriptAnswers(
      rows.map((row, i) => ({
        stage: "generate",
        content: {
          edits: [
            {
              kind: "replace",
              path: "solution.py",
              search: row.buggy_solution.trimEnd(),
              replace: i < 3 ? row.canonical_solution.trimEnd() : `${row.buggy_solution.trimEnd()}  # unchanged`,
            },
          ],
        },
      })),
    );
    const transcripts = await mkdtemp(join(tmpdir(), "autogen-transcripts-"));
    const recordedOut = await mkdtemp(join(tmpdir(), "autogen-eval-rec-"));
    const env = { AUTOGEN_LLM_BASE_URL: LLM_BASE };
    const common = [
      "eval",
      "--dataset",
      `humanevalfix:${SAMPLE}`,
      "--strategy",
      "direct",
      "--concurrency",
      "1",
      "--candidates",
      "1",
    ];
    const recorded = await runCli([...common, "--transcripts", transcripts, "--out", recordedOut], { env });
    expect(recorded.code).toBe(0);

    const replayedOut = await mkdtemp(join(tmpdir(), "autogen-eval-rep-"));
    const replayed = await runCli([...common, "--replay", transcripts, "--out", replayedOut], { env: {} });
    expect(replayed.code).toBe(0);

    const summary = async (dir: string) =>
      (JSON.parse(await readFile(join(dir, "results.json"), "utf8")) as { summaries: Summary[] })
        .summaries[0] as Summary;
    const a = await summary(recordedOut);
    const b = await summary(replayedOut);
    const lines = (
      await Promise.all(
        (await readdir(join(transcripts, "direct"))).map(
          async (f) => readTranscript(join(transcripts, "direct", f)).length,
        ),
      )
    ).reduce((x, y) => x + y, 0);
    expect(a).toMatchObject({ tasks: 5, solved: 3, notFixed: 2 });
    expect({ ...b, medianSeconds: 0, p90Seconds: 0, testSecondsPerTask: 0, llmWaitShare: 0 }).toEqual({
      ...a,
      medianSeconds: 0,
      p90Seconds: 0,
      testSecondsPerTask: 0,
      llmWaitShare: 0,
    });
    expect(a.llmCalls).toBe(lines);
    expect(b.llmCalls).toBe(lines);
    expect(a.llmCalls).toBe(5 + 3);

    // Per task: calls by stage, tokens, the first model call's time, seconds in tests, the hidden tests' verdict.
    const perTask = recorded.stdout.split("\n").filter((l) => l.startsWith("      model:"));
    expect(perTask).toHaveLength(5);
    expect(
      perTask.filter((l) =>
        /^ {6}model: 2 calls \(generate 1, behaviour-calls 1\); 200 prompt \+ 40 completion tokens; first model call after \d+\.\d s \(\d+\.\d s after the baseline\); tests \d+\.\d s; hidden tests pass$/.test(
          l,
        ),
      ),
    ).toHaveLength(3);
    expect(perTask.filter((l) => l.endsWith("; hidden tests fail"))).toHaveLength(2);
    const results = (
      JSON.parse(await readFile(join(recordedOut, "results.json"), "utf8")) as {
        results: Array<{ model: unknown; behaviour?: unknown; status: string; said?: string }>;
      }
    ).results;
    expect(results[0]?.model).toMatchObject({
      calls: 2,
      callsByStage: { generate: 1, "behaviour-calls": 1 },
      cachedCalls: 0,
      promptTokens: 200,
      completionTokens: 40,
    });
    // The post-checks ran on each fix: the behaviour table, before the fix and after it, is on the result.
    expect(results[0]?.behaviour).toEqual({
      kind: "table",
      module: "solution",
      // No reproduction stage in a HumanEvalFix task: the calls were asked for once the fix passed.
      written: "after-fix",
      rows: [
        { ...BEHAVIOUR[0]?.[0], before: "1.5", after: "0.5", expected: "0.5", flag: "ok" },
        { ...BEHAVIOUR[0]?.[1], before: "1.25", after: "0.25", expected: "unspecified", flag: "unrequested" },
      ],
    });
    expect(results[0]).toMatchObject({ status: "fixed", said: "fixed; 1 output change(s) the issue did not ask for" });
    expect(results[1]?.behaviour).toMatchObject({ kind: "table", rows: [{ flag: "ok" }, { flag: "ok" }] });
    // Not fixed: no fix to check, so no table.
    expect(results[3]?.behaviour).toBeUndefined();
    expect(recorded.stdout).toContain(
      "      behaviour: 2 call(s) on solution, 1 output change(s) the issue did not ask for, 0 contradicting it\n" +
        "      ok | truncate_number(3.5) | before 1.5 | after 0.5 | expected 0.5\n" +
        "      UNREQUESTED | truncate_number(1.25) | before 1.25 | after 0.25 | expected unspecified\n",
    );
    const markdown = await readFile(join(recordedOut, "results.md"), "utf8");
    expect(markdown).toContain(
      "| strategy | task | hidden tests | model calls | by stage | cached | prompt tok | completion tok | s to first call (after baseline) | test s | wall s |",
    );
    expect(
      markdown
        .split("\n")
        .filter((l) => l.startsWith("| direct | ") && l.includes(" | 1 | generate 1 | 0 | 100 | 20 | ")),
    ).toHaveLength(2);
    // The first call's delay from the task's start, and from its baseline's end (never later than the first).
    const taskRows = markdown.split("\n").filter((l) => l.startsWith("| direct | ") && l.includes(" | generate 1 | "));
    expect(taskRows.length).toBeGreaterThan(0);
    for (const row of taskRows) {
      const [, total, afterBaseline] = row.match(/ \| 20 \| (\d+\.\d) \((\d+\.\d)\) \| /) ?? [];
      expect(Number(afterBaseline), row).toBeLessThanOrEqual(Number(total));
    }
  });
});
