// The work of `autogen-bot eval`, loaded when the command runs; eval-command.ts describes it
// and holds its name, summary and usage.
import { existsSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { join, resolve } from "node:path";
import { llmEndpointFromEnv } from "../config/llm-env.ts";
import { repoConfigSchema } from "../config/repo-config-schema.ts";
import { pricesFromEnv } from "../config/prices.ts";
import { jobLlmClient, processScrubber } from "../llm/job-llm-client.ts";
import { replayFetch } from "../llm/replay-fetch.ts";
import { readTranscript } from "../llm/transcript.ts";
import { chooseStrategy } from "../engine/build-task.ts";
import { humanEvalFixTask, loadHumanEvalFix } from "../eval/humanevalfix-loader.ts";
import { checkLocalTask } from "../eval/check-local-task.ts";
import type { EvalTask } from "../eval/humanevalfix-loader.ts";
import { loadLocalTasks } from "../eval/local-task-loader.ts";
import { evalSandbox } from "../eval/run-eval-task.ts";
import { resultsChart } from "../eval/results-chart.ts";
import { runEval, type StrategyFactory } from "../eval/run-eval.ts";
import { resultsMarkdown, resultsSummaryLines, summarise } from "../eval/summarise-results.ts";
import { taskFiguresMarkdown } from "../eval/task-figures-table.ts";
import { searchConsoleLines, searchMarkdown } from "../eval/search-figures.ts";
import { behaviourRows, behaviourVerdict } from "../eval/behaviour-lines.ts";
import { formatTaskFigures } from "../metrics/task-figures.ts";
import { EXIT, UsageError, type CliIo } from "./command.ts";
import { parseFlags } from "./parse-flags.ts";

async function checkTasks(
  tasks: EvalTask[],
  settings: { testTimeoutMs: number; perTestTimeoutSeconds: number },
  io: CliIo,
): Promise<number> {
  let bad = 0;
  for (const task of tasks) {
    const check = await checkLocalTask(task, evalSandbox(settings));
    if (check.problems.length > 0) bad += 1;
    io.stdout(
      `${check.problems.length === 0 ? "ok  " : "BAD "} ${check.id} (${check.kind}): visible ${check.visible.buggy} -> ${check.visible.reference}; hidden ${check.hidden.buggy} -> ${check.hidden.reference}${check.problems.map((p) => `\n     ${p}`).join("")}\n`,
    );
  }
  io.stdout(`${tasks.length - bad} of ${tasks.length} tasks check out\n`);
  return bad === 0 ? EXIT.ok : EXIT.failed;
}

function positiveInt(value: string | undefined, name: string, fallback: number): number {
  if (value === undefined) return fallback;
  const n = Number(value);
  if (!Number.isInteger(n) || n < 0) throw new UsageError(`--${name} must be a whole number, got "${value}"`);
  return n;
}

export async function runEvalCommand(args: string[], io: CliIo): Promise<number> {
  const { values } = parseFlags(
    args,
    {
      dataset: { type: "string" },
      strategy: { type: "string", default: "template" },
      limit: { type: "string" },
      offset: { type: "string" },
      concurrency: { type: "string" },
      candidates: { type: "string" },
      minutes: { type: "string" },
      "test-timeout": { type: "string" },
      "per-test-timeout": { type: "string" },
      out: { type: "string", default: "eval-results" },
      transcripts: { type: "string" },
      replay: { type: "string" },
      check: { type: "boolean" },
      task: { type: "string" },
      "template-after": { type: "boolean" },
      review: { type: "boolean" },
    },
    false,
  );
  const dataset = values.dataset;
  if (!dataset)
    throw new UsageError(
      "--dataset is required (for example --dataset humanevalfix:../shared/datasets/humanevalfix-python/humanevalpack.jsonl)",
    );
  const [kind, ...rest] = dataset.split(":");
  if ((kind !== "humanevalfix" && kind !== "local") || rest.length === 0)
    throw new UsageError(
      `unknown dataset "${dataset}": expected humanevalfix:<path> or local:<directory of task repositories>`,
    );
  if (values.check && kind !== "local")
    throw new UsageError("--check checks local tasks against their reference fix: use it with --dataset local:<dir>");
  const replayDir = values.replay ? resolve(io.cwd, values.replay) : undefined;
  const endpoint = replayDir
    ? { baseURL: "http://replay.invalid/v1", apiKey: undefined, model: "replay" }
    : llmEndpointFromEnv(io.env);
  let prices;
  try {
    prices = pricesFromEnv(io.env);
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
  const config = repoConfigSchema.parse({});
  const scrub = processScrubber(io.env, [endpoint?.apiKey]);
  const transcriptsDir = values.transcripts ? resolve(io.cwd, values.transcripts) : undefined;
  const strategies: StrategyFactory[] = (values.strategy ?? "template").split(",").map((raw) => {
    const name = raw.trim();
    const make = (taskId: string) => {
      const file = `${taskId.replaceAll("/", "_")}.jsonl`;
      // Replay: each task's model answers come from the transcript recorded for it.
      const recorded =
        replayDir && existsSync(join(replayDir, name, file))
          ? readTranscript(join(replayDir, name, file))
          : replayDir
            ? []
            : undefined;
      const llm =
        endpoint && (name !== "template" || values.review === true)
          ? jobLlmClient({
              endpoint: recorded?.[0] ? { ...endpoint, model: recorded[0].model } : endpoint,
              // --minutes bounds the model's wall clock too (else the job's 45 minutes would).
              budgets:
                values.minutes === undefined
                  ? config.budgets
                  : {
                      ...config.budgets,
                      minutes: Math.min(
                        config.budgets.minutes,
                        positiveInt(values.minutes, "minutes", config.budgets.minutes),
                      ),
                    },
              prices,
              scrub,
              transcriptPath: transcriptsDir ? join(transcriptsDir, name, file) : undefined,
              fetch: recorded ? replayFetch(recorded) : undefined,
            })
          : undefined;
      // Strategies are compared alone (no template pass beside the LLM ones) unless --template-after.
      return {
        strategy: chooseStrategy({ name, config, llm, templateFirstPass: values["template-after"] === true }),
        budget: llm?.budget,
        llm,
      };
    };
    try {
      make("check");
    } catch (error) {
      throw new UsageError((error as Error).message);
    }
    // Every strategy but the model-free one reproduces an issue whose tests pass.
    return { name, make, canReproduce: name !== "template" };
  });
  const offset = positiveInt(values.offset, "offset", 0);
  const limit = positiveInt(values.limit, "limit", Number.MAX_SAFE_INTEGER);
  const settings = {
    concurrency: positiveInt(values.concurrency, "concurrency", 2),
    testTimeoutMs: positiveInt(values["test-timeout"], "test-timeout", 20) * 1000,
    perTestTimeoutSeconds: positiveInt(values["per-test-timeout"], "per-test-timeout", 1),
    budget: {
      candidates: positiveInt(values.candidates, "candidates", 400),
      minutes: positiveInt(values.minutes, "minutes", 5),
    },
  };
  let tasks;
  try {
    const path = resolve(io.cwd, rest.join(":"));
    const all =
      kind === "local"
        ? await loadLocalTasks(path)
        : await Promise.all((await loadHumanEvalFix(path)).map((row) => humanEvalFixTask(row)));
    const wanted = values.task
      ?.split(",")
      .map((t) => t.trim())
      .filter(Boolean);
    const missing = wanted?.filter((id) => !all.some((t) => t.id === id)) ?? [];
    if (missing.length > 0) throw new Error(`no task ${missing.join(", ")} in ${path}`);
    tasks = (wanted ? all.filter((t) => wanted.includes(t.id)) : all).slice(offset, offset + limit);
  } catch (error) {
    io.stderr(`autogen-bot eval: cannot load the dataset: ${(error as Error).message}\n`);
    return EXIT.usage;
  }
  if (values.check) return checkTasks(tasks, settings, io);
  const started = performance.now();
  const results = await runEval(tasks, strategies, settings, (r, done, total) => {
    io.stdout(
      `[${done}/${total}] ${r.strategy} ${r.id} ${r.verdict} (${r.stopReason}, ${r.cost.candidatesTried} candidates, ${r.timedOut} timed out, ${r.cost.wallSeconds.toFixed(1)}s)${r.fix ? `: ${r.fix}` : ""}${r.baselineStopped ? `; unchanged code ${r.baselineStopped}` : ""}\n`,
    );
    io.stdout(
      `      ${formatTaskFigures({ model: r.model, testSeconds: r.cost.testSeconds, hiddenTestsPassed: r.verdict === "solved" })}\n`,
    );
    if (r.behaviour)
      io.stdout([behaviourVerdict(r.behaviour), ...behaviourRows(r.behaviour)].map((l) => `      ${l}\n`).join(""));
    io.stdout(
      searchConsoleLines(r)
        .map((l) => `      ${l}\n`)
        .join(""),
    );
  });
  const summaries = summarise(results);
  const table = resultsMarkdown(summaries);
  const outDir = resolve(io.cwd, values.out ?? "eval-results");
  await mkdir(outDir, { recursive: true });
  await writeFile(
    resolve(outDir, "results.json"),
    `${JSON.stringify({ dataset, settings, summaries, results }, null, 2)}\n`,
  );
  const searches = searchMarkdown(results);
  await writeFile(
    resolve(outDir, "results.md"),
    `${table}\n\n${taskFiguresMarkdown(results)}\n${searches ? `\n${searches}\n` : ""}`,
  );
  await writeFile(resolve(outDir, "results.svg"), resultsChart(summaries));
  io.stdout(
    `\n${table}\n\n${resultsSummaryLines(summaries)}\n${tasks.length} tasks in ${((performance.now() - started) / 1000).toFixed(0)} s; results in ${outDir}\n`,
  );
  return EXIT.ok;
}
