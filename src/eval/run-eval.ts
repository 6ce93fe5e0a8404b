// Runs strategies over a dataset's tasks with bounded concurrency and collects results.
import type { Strategy } from "../engine/task.ts";
import type { Budget } from "../llm/budget.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { modelCallFigures, type ModelCallFigures } from "../metrics/task-figures.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";
import { runEvalTask, type EvalSettings, type TaskResult } from "./run-eval-task.ts";

/**
 * A strategy made fresh for each task, with its own model budget (and transcript) when it
 * has a model, and the model itself (the post-checks ask it for the behaviour table's
 * calls); `canReproduce` when it has one.
 */
export type StrategyFactory = {
  name: string;
  make: (taskId: string) => { strategy: Strategy; budget?: Budget | undefined; llm?: LlmClient | undefined };
  canReproduce?: boolean | undefined;
};

/** A task's result with what its model calls were (none for a model-free strategy). */
export type EvalResult = TaskResult & { model?: ModelCallFigures | undefined };

export async function runEval(
  tasks: EvalTask[],
  strategies: StrategyFactory[],
  settings: EvalSettings & { concurrency: number },
  onResult?: (result: EvalResult, done: number, total: number) => void,
): Promise<EvalResult[]> {
  const jobs = strategies.flatMap((strategy) => tasks.map((task) => ({ task, strategy })));
  const results: EvalResult[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index];
      if (!job) break;
      const made = job.strategy.make(job.task.id);
      const ran = await runEvalTask(job.task, made.strategy, settings, {
        canReproduce: job.strategy.canReproduce,
        llm: made.llm,
      });
      const result: EvalResult = made.budget ? { ...ran, model: modelCallFigures(made.budget.state) } : ran;
      results[index] = result;
      done += 1;
      onResult?.(result, done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.concurrency, jobs.length)) }, worker));
  return results;
}
