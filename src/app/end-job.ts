// How a job that threw ends: a cancellation (`/autogen stop`, an edited issue) is told as
// one, with who or what stopped it; anything else is a failure whose first line goes in
// the status comment. Either way the job's row is closed.
import type { Job } from "../jobs/job-store.ts";
import type { JobDeps } from "./run-issue-job.ts";
import type { StatusReporter } from "./status-reporter.ts";

export class JobCancelled extends Error {}

export async function endJobOnError(error: unknown, job: Job, deps: Pick<JobDeps, "store" | "log">, status: StatusReporter, signal: AbortSignal): Promise<void> {
  if (error instanceof JobCancelled || signal.aborted) {
    const reason = error instanceof JobCancelled ? error.message : ((signal.reason as Error | undefined)?.message ?? "stopped on request");
    await status.finish(`Cancelled: ${reason}.`).catch(() => undefined);
    deps.store.finish(job.id, "cancelled", reason);
    return;
  }
  deps.log.warn({ jobId: job.id, err: (error as Error).message }, "job failed");
  await status.finish(`Stopped by an error: ${(error as Error).message.split("\n")[0]}`).catch(() => undefined);
  deps.store.finish(job.id, "failed", (error as Error).message);
}
