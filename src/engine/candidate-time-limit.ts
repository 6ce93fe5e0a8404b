// A candidate's test run gets a wall-clock limit from the unchanged code's own run of the
// same tests, so a candidate that loops forever costs seconds, not the whole test-run limit.
import type { RunTimeLimit } from "../verify/local-verifier.ts";

/** At least this long, so start-up noise on a busy machine does not stop a sound candidate. */
export const CANDIDATE_FLOOR_MS = 10_000;
/** This many times the baseline run's duration. */
export const CANDIDATE_FACTOR = 5;

/** max(10 s, 5 × the baseline run), never above the test run's own limit (test.timeoutMinutes). */
export function candidateTimeLimit(baselineMs: number, capMs: number): RunTimeLimit {
  const timeoutMs = Math.min(capMs, Math.max(CANDIDATE_FLOOR_MS, Math.ceil(CANDIDATE_FACTOR * baselineMs)));
  const baseline = `${(Math.round(baselineMs / 100) / 10).toString()} s`;
  return { timeoutMs, reason: `the candidate limit: ${CANDIDATE_FACTOR} × the unchanged code's ${baseline} on the same tests, at least ${CANDIDATE_FLOOR_MS / 1000} s` };
}
