// Runs strategies over a dataset's tasks with bounded concurrency and collects results.
import type { Strategy } from "../engine/task.ts";

/** A strategy made fresh for each task (its own budget and transcript); `canReproduce` when it has a model. */
export type StrategyFactory = { name: string; make: (taskId: string) => Strategy; canReproduce?: boolean | undefined };
import type { EvalTask } from "./humanevalfix-loader.ts";
import { runEvalTask, type EvalSettings, type TaskResult } from "./run-eval-task.ts";

export async function runEval(
  tasks: EvalTask[],
  strategies: StrategyFactory[],
  settings: EvalSettings & { concurrency: number },
  onResult?: (result: TaskResult, done: number, total: number) => void,
): Promise<TaskResult[]> {
  const jobs = strategies.flatMap((strategy) => tasks.map((task) => ({ task, strategy })));
  const results: TaskResult[] = new Array(jobs.length);
  let next = 0;
  let done = 0;
  const worker = async () => {
    while (next < jobs.length) {
      const index = next++;
      const job = jobs[index];
      if (!job) break;
      const result = await runEvalTask(job.task, job.strategy.make(job.task.id), settings, { canReproduce: job.strategy.canReproduce });
      results[index] = result;
      done += 1;
      onResult?.(result, done, jobs.length);
    }
  };
  await Promise.all(Array.from({ length: Math.max(1, Math.min(settings.concurrency, jobs.length)) }, worker));
  return results;
}
