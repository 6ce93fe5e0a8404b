// Every run stops a test that never ends, the first run of the unchanged code included. The
// per-test limit counts the test's CPU time (our pytest plugin, unittest wrapper and node
// watchdog): a loop burns CPU at full rate and reaches it as soon as a quiet machine would let
// it, while a busy machine, which stretches an honest test's wall-clock time many times, does
// not make its CPU time longer. A test that blocks (sleeps, waits on a socket or a child) uses
// no CPU: a wall-clock limit, many times longer, stops it. A loop in the code under test is
// then a failing test, named, with its time, and the rest of the suite still reports.
import type { RunTimeLimit } from "./verifier.ts";

/**
 * One test's CPU time before any timing is known (the first run of the unchanged code): a
 * twentieth of the run's limit, 2 s to 30 s (30 s at the default test.timeoutMinutes of 10).
 * An ordinary unit test uses milliseconds of CPU; the slowest honest test we measured on real
 * suites is more-itertools' test_primes at 8.5 s of CPU (sqlparse, boltons, tabulate: under
 * 0.7 s; docs/evaluation.md, "Loops"), so a fixed few seconds would call it a loop. A run
 * limited to less says its tests are small: a test past a twentieth of the whole run's time
 * in CPU alone is not one of them.
 */
export function firstRunCpuMs(runTimeoutMs: number): number {
  return Math.min(FIRST_RUN_CPU_CEILING_MS, Math.max(FIRST_RUN_CPU_FLOOR_MS, Math.round(runTimeoutMs / 20)));
}
const FIRST_RUN_CPU_FLOOR_MS = 2_000;
const FIRST_RUN_CPU_CEILING_MS = 30_000;
/** The tracer's slowdown allowed for in a coverage run before any timing is known. */
export const FIRST_TRACE_FACTOR = 4;
/** A test that blocks gets this many times its CPU limit in wall-clock time (and at least a fifth of the run's limit, 10 s to 2 min). */
export const WALL_FACTOR = 10;
const WALL_FLOOR_MS = 10_000;
const WALL_CEILING_MS = 120_000;

const seconds = (ms: number) => String(Math.round(ms / 100) / 10);

/** A fifth of the run's limit, 10 s to 2 min: the least wall-clock time a test that blocks is given. */
export function defaultPerTestMs(runTimeoutMs: number): number {
  return Math.min(WALL_CEILING_MS, Math.max(WALL_FLOOR_MS, Math.round(runTimeoutMs / 5)));
}

/** The wall-clock limit of a test whose CPU limit is `cpuMs`, in a run limited to `runTimeoutMs`. */
export function perTestWallMs(cpuMs: number, runTimeoutMs: number): number {
  return Math.min(runTimeoutMs, Math.max(Math.ceil(WALL_FACTOR * cpuMs), defaultPerTestMs(runTimeoutMs)));
}

/** The limit a run gets: the caller's, with the first-run per-test limit where it set none, and a wall-clock limit for a test that blocks. */
export function withPerTestLimit(limit: RunTimeLimit | undefined, runTimeoutMs: number): RunTimeLimit {
  const timeoutMs = limit?.timeoutMs ?? runTimeoutMs;
  if (limit?.perTestMs !== undefined)
    return { ...limit, perTestWallMs: limit.perTestWallMs ?? perTestWallMs(limit.perTestMs, timeoutMs) };
  const perTestMs = Math.min(firstRunCpuMs(timeoutMs), timeoutMs);
  const wallMs = perTestWallMs(perTestMs, timeoutMs);
  const what = `${seconds(perTestMs)} s of CPU time (${seconds(wallMs)} s of wall-clock time for a test that blocks)`;
  return {
    timeoutMs,
    reason: limit ? `${limit.reason}; one test at most ${what}` : `the per-test limit of ${what}`,
    perTestMs,
    perTestWallMs: wallMs,
  };
}

/** Our Python harnesses' environment for a run's per-test limit; a tighter CPU limit already in the environment (eval's) is kept. */
export function pythonPerTestEnv(
  env: Record<string, string> | undefined,
  options: { perTestMs?: number | undefined; perTestWallMs?: number | undefined } | undefined,
): Record<string, string> {
  if (options?.perTestMs === undefined) return {};
  const given = Number(env?.AUTOGEN_TEST_TIMEOUT ?? 0);
  const ours = Math.ceil(options.perTestMs) / 1000;
  const wall = Math.ceil(options.perTestWallMs ?? WALL_FACTOR * options.perTestMs) / 1000;
  return {
    AUTOGEN_TEST_TIMEOUT: String(given > 0 && given < ours ? given : ours),
    AUTOGEN_TEST_WALL_TIMEOUT: String(wall),
  };
}
