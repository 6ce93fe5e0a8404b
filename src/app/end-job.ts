// How a job that threw ends: a cancellation (`/autogen stop`, an edited issue) is told as
// one, with who or what stopped it; a failure of GitHub's side is run again later (the
// status comment says when) until the job's budget of runs is spent; anything else is a
// failure whose first line goes in the status comment. Ending, the job's row is closed.
import type { Job } from "../jobs/store.ts";
import type { JobDeps } from "./job-deps.ts";
import type { StatusReporter } from "./status-reporter.ts";
import {
  DEFAULT_JOB_RETRY,
  describeGitHubFailure,
  isTransientGitHubError,
  nextRun,
  RetryJobLater,
} from "./job-retry.ts";

export class JobCancelled extends Error {}

export async function endJobOnError(
  error: unknown,
  job: Job,
  deps: Pick<JobDeps, "store" | "log" | "jobRetry">,
  status: StatusReporter,
  signal: AbortSignal,
): Promise<void> {
  if (error instanceof JobCancelled || signal.aborted) {
    const reason =
      error instanceof JobCancelled
        ? error.message
        : ((signal.reason as Error | undefined)?.message ?? "stopped on request");
    await status.finish(`Cancelled: ${reason}.`).catch(() => undefined);
    await deps.store.finish(job.id, "cancelled", reason);
    return;
  }
  if (isTransientGitHubError(error)) {
    const next = await nextRun(deps.store, job, deps.jobRetry ?? DEFAULT_JOB_RETRY);
    if (next.delayMs !== undefined) {
      deps.log.warn(
        { jobId: job.id, attempt: next.attempt, delayMs: next.delayMs, reason: describeGitHubFailure(error) },
        "job's GitHub calls failed; running it again later",
      );
      await status
        .note(
          `${describeGitHubFailure(error)}; trying again in ${Math.ceil(next.delayMs / 1000)} s (attempt ${next.attempt + 1} of ${(deps.jobRetry ?? DEFAULT_JOB_RETRY).maxAttempts}).`,
        )
        .catch(() => undefined);
      throw new RetryJobLater(next.delayMs, next.attempt, error);
    }
    const message = `${describeGitHubFailure(error)}; gave up after ${next.attempt} attempts`;
    deps.log.warn({ jobId: job.id, attempts: next.attempt, reason: message }, "job failed: GitHub kept failing");
    await status
      .finish(`Stopped: ${message}. Label the issue again (or comment \`/autogen retry\`) once GitHub is back.`)
      .catch(() => undefined);
    await deps.store.finish(job.id, "failed", message);
    return;
  }
  deps.log.warn({ jobId: job.id, err: (error as Error).message }, "job failed");
  await status.finish(`Stopped by an error: ${(error as Error).message.split("\n")[0]}`).catch(() => undefined);
  await deps.store.finish(job.id, "failed", (error as Error).message);
}
