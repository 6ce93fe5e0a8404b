// The HumanEvalFix loader and the evaluation harness on five real rows of the dataset.
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { humanEvalFixTask, loadHumanEvalFix, type HumanEvalFixRow } from "../../src/eval/humanevalfix-loader.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { allPassed, countByStatus, type TestReport } from "../../src/verify/test-report.ts";
import { runCli } from "../support/run-cli.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

const SAMPLE = fileURLToPath(new URL("../fixtures/humanevalfix/sample.jsonl", import.meta.url));
const verifier = localVerifier(pytestRunner([], "test"), { timeoutMs: 30_000, env: PYTEST_ENV });

/** Each row's buggy visible run: made once per file, checked by the cases that need it. */
const buggyRuns = new Map<string, Promise<{ report: TestReport }>>();
function buggyRun(row: HumanEvalFixRow) {
  let run = buggyRuns.get(row.task_id);
  if (!run) {
    run = humanEvalFixTask(row, "buggy").then(async (task) => ({
      report: await verifier.run(await writeRepo(task.files), { kind: "all" }),
    }));
    buggyRuns.set(row.task_id, run);
  }
  return run;
}

describe("HumanEvalFix tasks", () => {
  it("visible tests fail on the buggy body and pass on the canonical one; hidden tests too", async () => {
    const rows = await loadHumanEvalFix(SAMPLE);
    expect(rows.map((r) => r.task_id)).toEqual(["Python/2", "Python/12", "Python/16", "Python/23", "Python/27"]);
    for (const row of rows) {
      const canonical = await humanEvalFixTask(row, "canonical");
      const { report: buggyReport } = await buggyRun(row);
      expect(allPassed(buggyReport), `${row.task_id} buggy visible`).toBe(false);
      const canonicalReport = await verifier.run(await writeRepo(canonical.files), { kind: "all" });
      expect(allPassed(canonicalReport), `${row.task_id} canonical visible`).toBe(true);
      const hidden = await verifier.run(
        await writeRepo({ "solution.py": canonical.files["solution.py"] ?? "", ...canonical.hiddenFiles }),
        { kind: "all" },
      );
      expect(allPassed(hidden), `${row.task_id} canonical hidden`).toBe(true);
    }
  });

  it("splits a check made only of asserts into one visible test per assert", async () => {
    const [row] = (await loadHumanEvalFix(SAMPLE)).filter((r) => r.task_id === "Python/12");
    // The buggy task's visible run (the first case made it; made here when this case runs alone).
    const { report } = await buggyRun(row!);
    expect(report.tests.map((t) => t.name)).toEqual(["test_example_1", "test_example_2", "test_example_3"]);
    expect(countByStatus(report.tests).fail).toBeGreaterThan(0);
  });

  it("rejects a file that is not HumanEvalFix with the line number", async () => {
    const path = join(await mkdtemp(join(tmpdir(), "autogen-hef-")), "bad.jsonl");
    await writeFile(path, `${(await readFile(SAMPLE, "utf8")).split("\n")[0]}\n{"task_id": "x"}\n`);
    await expect(loadHumanEvalFix(path)).rejects.toThrow(/bad\.jsonl:2: not a HumanEvalFix row/);
  });
});

describe("autogen eval", () => {
  it("runs the template strategy on the tasks and prints a table whose counts match the results", async () => {
    const out = await mkdtemp(join(tmpdir(), "autogen-eval-out-"));
    const { code, stdout } = await runCli([
      "eval",
      "--dataset",
      `humanevalfix:${SAMPLE}`,
      "--strategy",
      "template",
      "--concurrency",
      "2",
      "--out",
      out,
    ]);
    expect(code).toBe(0);
    const written = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as {
      results: Array<{
        id: string;
        verdict: string;
        cost: { llmCalls: number; candidatesTried: number; testRuns: number };
      }>;
      summaries: Array<{
        tasks: number;
        solved: number;
        plausible: number;
        notFixed: number;
        llmCalls: number;
        stopReasons: Record<string, number>;
      }>;
    };
    expect(written.results).toHaveLength(5);
    const verdicts = written.results.map((r) => r.verdict);
    const [summary] = written.summaries;
    expect(summary).toMatchObject({
      tasks: 5,
      solved: verdicts.filter((v) => v === "solved").length,
      plausible: verdicts.filter((v) => v === "plausible").length,
      notFixed: verdicts.filter((v) => v === "not-fixed").length,
      llmCalls: 0,
    });
    expect(summary!.solved).toBeGreaterThanOrEqual(3);
    expect(Object.values(summary!.stopReasons).reduce((a, b) => a + b, 0)).toBe(5);
    expect(stdout.match(/^\[\d\/5\] template Python\/\d+ (solved|plausible|not-fixed)/gm)).toHaveLength(5);
    expect(stdout).toContain(
      `| template | 5 | ${summary!.solved} | ${summary!.plausible} | ${summary!.notFixed} | 0 |`,
    );
    expect(await readFile(join(out, "results.md"), "utf8")).toContain(
      "| strategy | tasks | solved | plausible | not fixed |",
    );
  });

  it("rejects a missing or unknown dataset and an LLM strategy with a clear usage error", async () => {
    expect((await runCli(["eval"])).stderr).toContain("--dataset is required");
    expect((await runCli(["eval", "--dataset", "swebench:/x"])).stderr).toContain('unknown dataset "swebench:/x"');
    const lpw = await runCli(["eval", "--dataset", `humanevalfix:${SAMPLE}`, "--strategy", "lpw"]);
    expect(lpw.code).toBe(2);
    expect(lpw.stderr).toContain('strategy "lpw" needs an LLM endpoint: set AUTOGEN_LLM_BASE_URL');
    const missing = await runCli(["eval", "--dataset", "humanevalfix:/nonexistent.jsonl"]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("cannot load the dataset");
  });
});

describe("autogen eval on a directory of local task repositories", () => {
  it("runs each task, scores it on its hidden tests, and writes the table, JSON and chart", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-local-tasks-"));
    const write = async (path: string, text: string) => {
      await mkdir(join(dir, path, ".."), { recursive: true });
      await writeFile(join(dir, path), text);
    };
    await write("fixable/calc.py", "def add(a, b):\n    return a - b\n");
    await write("fixable/test_calc.py", "from calc import add\n\ndef test_add():\n    assert add(2, 3) == 5\n");
    await write(
      "fixable/hidden/test_hidden.py",
      "from calc import add\n\ndef test_more():\n    assert add(-1, 1) == 0\n    assert add(10, 5) == 15\n",
    );
    await write("hopeless/greet.py", "def greet(name):\n    return 'hi'\n");
    await write(
      "hopeless/test_greet.py",
      "from greet import greet\n\ndef test_greet():\n    assert greet('ann') == 'hello ann'\n",
    );
    await write(
      "hopeless/hidden/test_hidden.py",
      "from greet import greet\n\ndef test_hidden():\n    assert greet('bo') == 'hello bo'\n",
    );
    const out = await mkdtemp(join(tmpdir(), "autogen-local-out-"));
    const { code, stdout } = await runCli(["eval", "--dataset", `local:${dir}`, "--concurrency", "2", "--out", out]);
    expect(code).toBe(0);
    expect(stdout).toContain("| template | 2 | 1 | 0 | 1 | 0 |");
    const json = JSON.parse(await readFile(join(out, "results.json"), "utf8")) as {
      results: Array<{ id: string; verdict: string }>;
    };
    expect(Object.fromEntries(json.results.map((r) => [r.id, r.verdict]))).toEqual({
      fixable: "solved",
      hopeless: "not-fixed",
    });
    const svg = await readFile(join(out, "results.svg"), "utf8");
    expect(svg).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
    expect(svg).toContain("<title>template: 1 solved</title>");
    expect(svg).toContain(">1/2</text>");
  });

  it("refuses a task without hidden tests", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-local-tasks-"));
    await mkdir(join(dir, "t1"));
    await writeFile(join(dir, "t1", "test_a.py"), "def test_a():\n    assert True\n");
    const { code, stderr } = await runCli(["eval", "--dataset", `local:${dir}`]);
    expect(code).toBe(2);
    expect(stderr).toContain("a task needs hidden tests in hidden/");
  });
});
