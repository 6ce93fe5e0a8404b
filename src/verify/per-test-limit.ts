// Every run stops a test that never ends, the first run of the unchanged code included:
// before any timing is known, one test may take a fifth of the run's own limit, between
// 10 s and 2 minutes. A loop in the code under test is then a failing test, named, with
// its time, and the rest of the suite still reports.
import type { RunTimeLimit } from "./verifier.ts";

const FLOOR_MS = 10_000;
const CEILING_MS = 120_000;

export function defaultPerTestMs(runTimeoutMs: number): number {
  return Math.min(CEILING_MS, Math.max(FLOOR_MS, Math.round(runTimeoutMs / 5)));
}

/** The limit a run gets: the caller's, with the default per-test limit where it set none. */
export function withPerTestLimit(limit: RunTimeLimit | undefined, runTimeoutMs: number): RunTimeLimit {
  if (limit?.perTestMs !== undefined) return limit;
  const perTestMs = Math.min(defaultPerTestMs(runTimeoutMs), limit?.timeoutMs ?? runTimeoutMs);
  const seconds = String(Math.round(perTestMs / 100) / 10);
  return {
    timeoutMs: limit?.timeoutMs ?? runTimeoutMs,
    reason: limit
      ? `${limit.reason}; one test at most ${seconds} s`
      : `the per-test limit of ${seconds} s (a fifth of the run's limit, 10 s to 2 min)`,
    perTestMs,
  };
}
