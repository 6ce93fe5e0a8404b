// A job whose GitHub calls fail at run time (5xx, a rate limit past Octokit's own retries,
// GitHub unreachable) is not failed at once: it is run again after a growing delay, from
// its checkpoints (a pushed change is not rebuilt), a bounded number of times, counted in
// the job's checkpoint so a restart does not reset the count. Past the last attempt the
// job ends `failed` with a sentence naming GitHub's answer. Any other error that escapes
// a run also closes the job's row: no job stays `running` silently.
import type { Job, Store } from "../jobs/store.ts";

export type JobRetryPolicy = {
  /** Runs of one job in all, the first included. */
  maxAttempts: number;
  /** Delay before run `attempt + 1` (1 = after the first failed run). */
  backoffMs: (attempt: number) => number;
};

export const DEFAULT_JOB_RETRY: JobRetryPolicy = {
  maxAttempts: 5,
  // 30 s, 1 min, 2 min, 4 min: a GitHub incident of a few minutes is ridden out.
  backoffMs: (attempt) => Math.min(600_000, 30_000 * 2 ** (attempt - 1)),
};

type Log = { warn: (meta: object, msg: string) => void; error: (meta: object, msg: string) => void };
type HttpError = Error & { status?: number; response?: { headers?: Record<string, string | undefined> } };

/** A failure of GitHub's side that is worth trying again later: 5xx, 429, a rate-limit 403, or no answer. */
export function isTransientGitHubError(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const e = error as HttpError;
  if (e.name !== "HttpError" && e.name !== "RequestError") return false;
  const status = e.status ?? 0;
  if (status >= 500 || status === 429) return true;
  const headers = e.response?.headers ?? {};
  return status === 403 && (headers["x-ratelimit-remaining"] === "0" || headers["retry-after"] !== undefined);
}

/** GitHub's answer in one line, for the store and the status comment. */
export function describeGitHubFailure(error: unknown): string {
  const e = error as HttpError;
  const first = (e.message ?? String(error)).split("\n")[0]?.slice(0, 200) ?? "";
  return e.status ? `GitHub answered ${e.status} (${first})` : `GitHub did not answer (${first})`;
}

/** Thrown out of a run whose GitHub calls failed and that is to run again after `delayMs`. */
export class RetryJobLater extends Error {
  readonly delayMs: number;
  readonly attempt: number;
  constructor(delayMs: number, attempt: number, cause: unknown) {
    super(describeGitHubFailure(cause), { cause });
    this.name = "RetryJobLater";
    this.delayMs = delayMs;
    this.attempt = attempt;
  }
}

/**
 * Counts a failed run against the job's budget: the delay before the next run, or
 * undefined when this was the last one. The count lives in the checkpoint.
 */
export async function nextRun(
  store: Store,
  job: Job,
  policy: JobRetryPolicy,
): Promise<{ attempt: number; delayMs: number | undefined }> {
  const attempt = ((await store.get(job.id))?.checkpoint.githubFailures ?? 0) + 1;
  await store.checkpoint(job.id, { githubFailures: attempt });
  return { attempt, delayMs: attempt < policy.maxAttempts ? policy.backoffMs(attempt) : undefined };
}

/** Resolves after `ms`, or false at once when the signal aborts (the job stays for the next start). */
function sleep(ms: number, signal: AbortSignal): Promise<boolean> {
  if (signal.aborted) return Promise.resolve(false);
  return new Promise((resolve) => {
    const timer = setTimeout(() => {
      signal.removeEventListener("abort", onAbort);
      resolve(true);
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      resolve(false);
    };
    signal.addEventListener("abort", onAbort, { once: true });
  });
}

/**
 * Runs a job until it ends: a `RetryJobLater` (or a transient GitHub error thrown before
 * the run could report it, such as the installation token) waits and runs it again from
 * the store's copy (its checkpoints); anything else unexpected ends the job `failed`.
 */
export async function runJobWithRetries(
  store: Store,
  job: Job,
  signal: AbortSignal,
  run: (job: Job, signal: AbortSignal) => Promise<void>,
  policy: JobRetryPolicy,
  log: Log,
): Promise<void> {
  let current = job;
  for (;;) {
    let delayMs: number;
    try {
      await run(current, signal);
      return;
    } catch (error) {
      if (error instanceof RetryJobLater) delayMs = error.delayMs;
      else if (isTransientGitHubError(error) && !signal.aborted) {
        const next = await nextRun(store, current, policy);
        if (next.delayMs === undefined) {
          const message = `${describeGitHubFailure(error)}; gave up after ${next.attempt} attempts`;
          log.error({ jobId: job.id, attempts: next.attempt, reason: message }, "job failed: GitHub kept failing");
          await store.finish(job.id, "failed", message);
          return;
        }
        log.warn(
          { jobId: job.id, attempt: next.attempt, delayMs: next.delayMs, reason: describeGitHubFailure(error) },
          "job's GitHub calls failed; running it again later",
        );
        delayMs = next.delayMs;
      } else {
        // Interrupted by a shutdown: left running, requeued at the next start.
        if (signal.aborted) return;
        const message = (error instanceof Error ? error.message : String(error)).split("\n")[0] ?? "";
        log.error({ jobId: job.id, err: message }, "job ended by an unexpected error");
        await store.finish(job.id, "failed", message);
        return;
      }
    }
    if (!(await sleep(delayMs, signal))) return;
    current = (await store.get(job.id)) ?? current;
    if (current.state !== "running") return;
  }
}
