// Time limits for candidate runs, from the unchanged code's own timings: each test gets
// factor × the slowest test it saw plus a floor, each run that many per selected test plus
// twice the start-up and collection time the unchanged code's run spent outside its tests.
// A candidate that loops forever then costs seconds, not the test run's own limit.
import type { RunTimeLimit } from "../verify/local-verifier.ts";
import type { TestSelection } from "../verify/runners/test-runner.ts";
import { stoppedByTestLimit } from "../verify/mark-test-timeout.ts";
import type { TestReport } from "../verify/test-report.ts";

/** `test.candidateLimit` in the repository's config. */
export type CandidateLimitSettings = { factor: number; floorSeconds: number };

export const DEFAULT_CANDIDATE_LIMIT: CandidateLimitSettings = { factor: 5, floorSeconds: 1 };

/**
 * Start-up is measured moments before on the same machine, so it needs less margin than a
 * test's time; twice it still covers a busy machine's noise. A synchronous loop in a node
 * test blocks its --test-timeout, so for JavaScript this run limit is what stops it.
 */
const STARTUP_MARGIN = 2;
/** How many times slower a test may run under the per-test line tracer than a candidate's limit allows. */
const TRACE_FACTOR = 4;
/**
 * A test that blocks uses no CPU: it is stopped at this many times its CPU allowance in
 * wall-clock time. The allowance already holds 5 × the slowest test's wall-clock time on the
 * unchanged code, so three times that covers a busy machine; a candidate that deadlocks still
 * costs seconds, not the first run's 10 ×.
 */
const BLOCKING_FACTOR = 3;

const seconds = (ms: number) => `${(Math.round(ms / 10) / 100).toString()} s`;

export class CandidateLimits {
  private readonly settings: CandidateLimitSettings;
  private readonly capMs: number;
  private slowestMs = 0;
  private overheadMs = 0;
  /** Tests seen in a baseline run of the whole suite (or the most seen in one run). */
  private suiteSize = 0;
  private learned = false;

  /** `capMs`: the test run's own limit (test.timeoutMinutes); no candidate limit exceeds it. */
  constructor(settings: CandidateLimitSettings | undefined, capMs: number) {
    this.settings = settings ?? DEFAULT_CANDIDATE_LIMIT;
    this.capMs = capMs;
  }

  /** A run of the unchanged code: its slowest test and its time outside the tests. */
  learn(report: TestReport): void {
    // Durations come from the runner's report, which the repository's code can write: only sane ones count.
    const sane = (t: TestReport["tests"][number]) => Number.isFinite(t.durationMs ?? 0) && (t.durationMs ?? 0) >= 0;
    const inTests = report.tests.filter(sane).reduce((a, t) => a + (t.durationMs ?? 0), 0);
    // A test the per-test limit stopped (a loop in the unchanged code) timed the limit, not the test: it sets no candidate's limit.
    const timed = report.tests.filter((t) => sane(t) && !stoppedByTestLimit(t)).map((t) => t.durationMs ?? 0);
    // A fold, not Math.max(...times): a report of a few hundred thousand tests would overflow the call stack.
    this.slowestMs = timed.reduce((a, b) => Math.max(a, b), this.slowestMs);
    // Runs are sequential: time not inside a test is start-up, collection and teardown.
    this.overheadMs = Math.max(this.overheadMs, report.run.durationMs - inTests, 0);
    this.suiteSize = Math.max(this.suiteSize, report.tests.length);
    this.learned = true;
  }

  /**
   * One test's limit in the per-test coverage run: tracing slows a test down many times, so
   * TRACE_FACTOR × a candidate's allowance for the slowest test, plus twice the floor; a test that looped in the unchanged code's
   * run is stopped again within seconds, not at the first run's limit. None before a baseline.
   */
  tracePerTestMs(): number | undefined {
    if (!this.learned) return undefined;
    const { factor, floorSeconds } = this.settings;
    // The slowdown multiplies the tests' measured time; the floor (noise, not test time) only doubles.
    return Math.min(this.capMs, Math.ceil(TRACE_FACTOR * factor * this.slowestMs + 2 * floorSeconds * 1000));
  }

  /**
   * One test's limit where the coverage run traces `failing`: a candidate's per-test limit when
   * every one of them was stopped by a limit in the unchanged code's run (a loop). Such a test
   * fails again whatever its limit, and its first moments already run the lines of its loop;
   * tracing it TRACE_FACTOR times longer would tell nothing more. Otherwise `tracePerTestMs`.
   */
  traceFailingPerTestMs(failing: TestReport["tests"]): number | undefined {
    if (!this.learned || failing.length === 0 || !failing.every(stoppedByTestLimit)) return this.tracePerTestMs();
    const { factor, floorSeconds } = this.settings;
    return Math.min(this.capMs, Math.ceil(factor * this.slowestMs + floorSeconds * 1000));
  }

  /**
   * The limit for one candidate run of `selection`; none before a baseline was learned. A
   * test's CPU time is limited to `perTestMs`; a test that blocks (sleeps, waits) uses no CPU
   * and is stopped at BLOCKING_FACTOR × that in wall-clock time. The run is given room for one such
   * test beyond its start-up, so a test that blocks fails by itself, named, instead of the whole
   * run being cut off before it reports.
   */
  limitFor(selection: TestSelection | undefined): RunTimeLimit | undefined {
    if (!this.learned) return undefined;
    const { factor, floorSeconds } = this.settings;
    const perTestMs = Math.ceil(factor * this.slowestMs + floorSeconds * 1000);
    const tests = Math.max(1, selection?.kind === "tests" ? selection.ids.length : this.suiteSize);
    const startupMs = STARTUP_MARGIN * this.overheadMs;
    const wallMs = Math.min(this.capMs, BLOCKING_FACTOR * perTestMs);
    const timeoutMs = Math.min(
      this.capMs,
      Math.ceil(Math.max(startupMs + tests * perTestMs, startupMs + wallMs + floorSeconds * 1000)),
    );
    // Under a cap, the blocking test's limit still ends before the run's where there is room for it.
    const perTestWallMs = Math.max(
      Math.min(perTestMs, timeoutMs),
      Math.min(wallMs, timeoutMs - startupMs - floorSeconds * 1000),
    );
    return {
      timeoutMs,
      perTestMs: Math.min(perTestMs, timeoutMs),
      perTestWallMs,
      reason:
        `the candidate limit: ${tests} test(s) × ${seconds(perTestMs)} (${factor.toString()} × the slowest test's ${seconds(this.slowestMs)} + ${floorSeconds.toString()} s) ` +
        `+ ${STARTUP_MARGIN.toString()} × the ${seconds(this.overheadMs)} the unchanged code's run spent starting and collecting` +
        `; a test that blocks is stopped after ${seconds(perTestWallMs)}`,
    };
  }
}

/** The limit that stopped a candidate's run (its whole run, or one of its tests), when one did. */
export function candidateTimedOut(report: TestReport): string | undefined {
  const limit = report.run.limit;
  return limit && (limit.name === "wall-time" || limit.name === "test-time") ? limit.message : undefined;
}
