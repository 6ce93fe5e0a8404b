// The work every strategy does around its own search, done one way: run and count the
// tests; take the baseline (visible tests on the unchanged code, stop on a broken command
// or nothing to fix, the regression suite, the candidates' time limits); validate a
// candidate (failing tests first when asked, the visible tests, the regression gate) and
// record it as an attempt with its evidence; accept the fix; finish with the costs. The
// workspace is restored unless a fix was accepted.
import type { WarmSlot } from "../../verify/warm/warm-pytest-slot.ts";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { keepSelected } from "../../verify/keep-selected.ts";
import { brokenRunReason } from "../../verify/load-failure.ts";
import { stoppedByTestLimit } from "../../verify/mark-test-timeout.ts";
import type { RunTimeLimit } from "../../verify/local-verifier.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import {
  allPassed,
  failingTests,
  finishedOnItsOwn,
  type TestCaseResult,
  type TestReport,
} from "../../verify/test-report.ts";
import { EditError, type Edit } from "../../workspace/apply-edits.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { CandidateLimits, candidateTimedOut } from "../candidate-limits.ts";
import { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import {
  emptyOutcome,
  evidenceOf,
  visibleSelection,
  type Attempt,
  type Outcome,
  type Task,
  type TestEvidence,
} from "../task.ts";
import { AttemptLog, type CandidateDiff } from "./attempt-log.ts";
import { describeStopped, stoppedTests } from "./check-test-outcomes.ts";
import { regressionGate } from "./regression-gate.ts";
import { RunCosts } from "./run-costs.ts";
import { Stop } from "./stop-run.ts";

export { Stop } from "./stop-run.ts";

/** The visible tests' results in a run of the whole suite, when it ran every one of them (by its exact id). */
function resultsIn(suite: TestReport, visible: TestSelection): TestReport | undefined {
  if (visible.kind === "all") return suite;
  const ran = new Set(suite.tests.map((t) => t.id));
  return visible.ids.length > 0 && visible.ids.every((id) => ran.has(id)) ? keepSelected(suite, visible) : undefined;
}

/**
 * A candidate's whole-suite run as its visible run: only when it ran every visible test by its exact id and
 * finished on its own (no limit stopped it, no signal), so nothing in it differs from a run of those tests alone
 * but the other tests beside them. Otherwise the visible tests are run on their own, as they would have been.
 */
function visibleResultsIn(suite: TestReport, visible: TestSelection): TestReport | undefined {
  return finishedOnItsOwn(suite.run) ? resultsIn(suite, visible) : undefined;
}

/** The suite run's results of the visible tests when one of them was stopped at a limit there (it looped). */
function loopedIn(suite: TestReport, visible: TestSelection): TestReport | undefined {
  const known = resultsIn(suite, visible);
  return known && failingTests(known).some(stoppedByTestLimit) ? known : undefined;
}

export type Baseline = {
  before: TestReport;
  failing: TestCaseResult[];
  visible: TestSelection;
  regression: TestReport | undefined;
};

/** What a strategy says about a candidate; the run numbers it (unless given) and fills the result. */
export type Candidate = Omit<Attempt, "index" | "result" | "passed" | "failed" | "limit"> & {
  index?: number | undefined;
};

export type Validated = { attempt: Attempt; report: TestReport };

export type RunOptions = {
  /** The model whose budget the run's costs are taken from; none for a model-free strategy. */
  llm?: LlmClient | undefined;
  /** The number shown after "attempt n/": how many candidates the run may try. */
  total?: (() => number) | undefined;
  started?: number | undefined;
};

type CandidateEvidence = { after: TestEvidence; regressionAfter?: TestEvidence | undefined };

export class StrategyRun {
  readonly task: Task;
  readonly outcome: Outcome;
  /** The workspace's changes, for strategies that edit it in place. */
  readonly changes: WorkspaceChanges;
  readonly started: number;
  private readonly costs: RunCosts;
  private readonly log: AttemptLog;
  private readonly total: () => number;
  /** The visible and regression runs of each candidate that passed the visible tests, by attempt number. */
  private readonly evidence = new Map<number, CandidateEvidence>();
  private base: Baseline | undefined;
  /** Time limits for candidate runs (each test, each run), learnt from the unchanged code's runs. */
  private readonly limits: CandidateLimits;

  constructor(task: Task, strategy: string, options: RunOptions = {}) {
    this.task = task;
    this.outcome = emptyOutcome(strategy);
    this.changes = new WorkspaceChanges(task.workspace);
    this.costs = new RunCosts(options.llm?.budget.state, options.started);
    this.started = this.costs.started;
    this.total = options.total ?? (() => task.budget.candidates);
    this.log = new AttemptLog(this.outcome.attempts, (attempt, diff) => this.released(attempt, diff));
    this.limits = new CandidateLimits(task.candidateLimit, task.sandbox.timeoutMs);
  }

  /** Runs the strategy's body; a Stop, a spent budget or a failed model stage ends the run with that reason; the code is restored unless fixed. */
  async run(body: () => Promise<Outcome>): Promise<Outcome> {
    try {
      return await body();
    } catch (error) {
      if (error instanceof Stop) return this.finish(error.reason, error.message);
      if (error instanceof BudgetExceededError) return this.finish("budget", error.message);
      if (error instanceof LlmStageError)
        return this.finish("error", `the ${error.stage} stage failed: ${error.message.slice(error.stage.length + 2)}`);
      throw error;
    } finally {
      if (this.outcome.status !== "fixed") await this.changes.restore();
    }
  }

  /** `warm`: a slot's warm runner, used instead of a cold run where given. */
  async test(
    selection: TestSelection,
    workspace = this.task.workspace,
    limit?: RunTimeLimit,
    warm?: WarmSlot,
  ): Promise<TestReport> {
    const report = warm
      ? await warm.run(selection, limit)
      : await this.task.verifier.run(workspace, selection, undefined, limit);
    RunCosts.countTests(this.outcome.cost, 1, report.run.durationMs);
    return report;
  }

  /** The regression gate's run of the unchanged code: the job's baseline when that was the same run, else a new one. */
  private async suiteBefore(regression: TestSelection): Promise<TestReport> {
    const known = this.task.suiteBefore;
    return regression.kind === "all" && known ? known : this.test(regression);
  }

  /** Test runs a strategy made outside `test` (coverage, instrumented runs). */
  countTestRuns(runs: number, durationMs = 0): void {
    RunCosts.countTests(this.outcome.cost, runs, durationMs);
  }

  /** One test's limit in the per-test coverage run, from the unchanged code's timings (after `baseline()`). */
  tracePerTestMs(): number | undefined {
    return this.limits.tracePerTestMs();
  }

  /** One test's limit where the coverage run traces the failing tests `failing` (after `baseline()`). */
  traceFailingPerTestMs(failing: TestCaseResult[]): number | undefined {
    return this.limits.traceFailingPerTestMs(failing);
  }

  /** A candidate's limit for a run of `selection`, from the unchanged code's timings (after `baseline()`). */
  candidateLimit(selection: TestSelection): RunTimeLimit | undefined {
    return this.limits.limitFor(selection);
  }

  /** The unchanged code: its visible run (which must load and fail), the regression suite's run, and the candidates' limits from both. */
  async baseline(): Promise<Baseline> {
    const visible = visibleSelection(this.task);
    if (!visible)
      throw new Stop("unsupported", "no failing test to work on: reproduce the issue first (withReproduction)");
    this.task.onProgress?.({
      kind: "stage",
      stage: "reproduce",
      detail: "running the visible tests on the unchanged code",
    });
    // The whole suite's run of the same code, made before the strategy: its timings limit these runs too.
    const suite = this.task.suiteBaseline;
    if (suite) this.limits.learn(suite);
    // The job's run of the whole suite on this same workspace holds the visible tests' results already: a
    // test that loops there is not run to a limit again. Tests that failed there otherwise are run once more
    // on their own (limited by the suite's timings): one that passes now was flaky, nothing of the task's.
    const known = this.task.suiteBefore ? loopedIn(this.task.suiteBefore, visible) : undefined;
    const before = known ?? (await this.test(visible, undefined, suite ? this.limits.limitFor(visible) : undefined));
    this.outcome.evidence.before = evidenceOf(before);
    const broken = brokenRunReason(before, this.task.workspace);
    if (broken) throw new Stop("broken-tests", `the test command is broken: ${broken}`);
    const failing = failingTests(before);
    if (failing.length === 0)
      throw new Stop("nothing-to-fix", "every visible test already passes; there is nothing to repair");
    // The whole suite on the unchanged code was run already (and the workspace has not changed since): not again.
    const regression = this.task.regression ? await this.suiteBefore(this.task.regression) : undefined;
    if (regression) this.outcome.evidence.regressionBefore = evidenceOf(regression);
    // Candidate runs are limited by the unchanged code's own timings from here on (the suite's were learnt already).
    if (!known) this.limits.learn(before);
    if (regression) this.limits.learn(regression);
    this.base = { before, failing, visible, regression };
    return this.base;
  }

  /**
   * A candidate already written in `workspace`: the failing tests first (`first`), then the
   * visible tests, then the regression gate; recorded with the run that decided it.
   * `diff` is the candidate's change, taken only if it becomes the closest attempt.
   * `warm`: the slot's warm runner, for the failing tests (`first`) only; a candidate that
   * passes them is confirmed by cold runs of the visible tests and the regression gate (one run
   * when the gate's whole suite holds the visible tests: `visibleResultsIn`).
   */
  async validate(
    candidate: Candidate,
    options: {
      workspace?: string;
      first?: TestSelection;
      diff?: () => CandidateDiff;
      warm?: WarmSlot | undefined;
    } = {},
  ): Promise<Validated> {
    const base = this.base;
    if (!base) throw new Error("validate before baseline");
    const workspace = options.workspace ?? this.task.workspace;
    const index = candidate.index ?? this.log.next();
    this.outcome.cost.candidatesTried += 1;
    const record = (result: Attempt["result"], report: TestReport, reason?: string): Validated => {
      const failed = failingTests(report).length;
      // A candidate stopped by a time limit (a loop it made endless, in one test or the run) failed; the job goes on.
      const timedOut = result === "plausible" || result === "tampering" ? undefined : candidateTimedOut(report);
      const attempt: Attempt = {
        ...candidate,
        index,
        result: timedOut ? "timed-out" : result,
        passed: report.tests.length - failed,
        failed,
        ...(timedOut ? { limit: timedOut } : {}),
        ...(reason ? { reason } : {}),
      };
      this.log.record(attempt, options.diff);
      return { attempt, report };
    };
    let sameRun: TestReport | undefined;
    let suiteRun: TestReport | undefined;
    if (options.first) {
      const first = await this.test(options.first, workspace, this.limits.limitFor(options.first), options.warm);
      if (!allPassed(first)) return record("still-failing", first);
      // A cold run of the failing tests that are all the visible tests is the visible run: not run twice.
      if (!options.warm && sameSelection(options.first, base.visible)) sameRun = first;
      // A candidate that passed its failing tests will most likely pass the visible ones: when the regression
      // gate's whole-suite run held every visible test on the unchanged code, that cold run is made first and
      // its results of the visible tests are the visible run (one cold run instead of two).
      else if (this.task.regression?.kind === "all" && base.regression && resultsIn(base.regression, base.visible)) {
        suiteRun = await this.test(this.task.regression, workspace, this.limits.limitFor(this.task.regression));
        sameRun = visibleResultsIn(suiteRun, base.visible);
      }
    }
    const visible = sameRun ?? (await this.test(base.visible, workspace, this.limits.limitFor(base.visible)));
    // Judged by outcome, whatever file did it: every visible test that ran on the unchanged code runs again. A run
    // with nothing failing that still did not pass (pytest's "no tests ran") is judged so too.
    const stoppedVisible =
      failingTests(visible).length === 0 && !candidateTimedOut(visible) ? stoppedTests(base.before, visible) : [];
    if (stoppedVisible.length > 0) return record("tampering", visible, describeStopped(stoppedVisible));
    if (!allPassed(visible)) return record(options.first ? "visible-regressed" : "still-failing", visible);
    // Kept per candidate: with parallel slots, another candidate may finish after the winner.
    const evidence: CandidateEvidence = { after: evidenceOf(visible) };
    this.evidence.set(index, evidence);
    if (this.task.regression && base.regression) {
      const regression =
        suiteRun ?? (await this.test(this.task.regression, workspace, this.limits.limitFor(this.task.regression)));
      evidence.regressionAfter = evidenceOf(regression);
      const stopped = stoppedTests(base.regression, regression);
      if (stopped.length > 0 && !candidateTimedOut(regression))
        return record("tampering", regression, describeStopped(stopped));
      // A run stopped by its time limit reported only the tests that ended before the stop: never a pass.
      if (!regressionGate(base.regression, regression).held || candidateTimedOut(regression))
        return record("regression-failed", regression);
    }
    return record("plausible", visible);
  }

  /** A generated candidate as edits on the workspace as it is now: applied and validated; edits that do not apply are a failed attempt. */
  async tryEdits(edits: Edit[], candidate: Candidate): Promise<Validated> {
    this.outcome.cost.candidatesGenerated += 1;
    try {
      await this.changes.apply(edits);
    } catch (error) {
      if (!(error instanceof EditError || error instanceof UnsafePathError)) throw error;
      this.outcome.cost.candidatesTried += 1;
      const report = editFailure(error.message);
      const attempt: Attempt = {
        ...candidate,
        index: candidate.index ?? this.log.next(),
        description: `${candidate.description}: the edits did not apply`,
        result: "edit-failed",
        passed: 0,
        failed: 1,
      };
      this.log.record(attempt);
      return { attempt, report };
    }
    const changed = this.changes.diff();
    return this.validate({ ...candidate, file: changed.files.join(", ") || undefined }, { diff: () => changed });
  }

  /** A plausible candidate becomes the fix: its diff (by default the workspace's changes) and its evidence. */
  accept(attempt: Attempt, fix: CandidateDiff = this.changes.diff()): void {
    if (attempt.result !== "plausible") throw new Error(`attempt ${attempt.index} is ${attempt.result}, not plausible`);
    Object.assign(this.outcome, {
      status: "fixed",
      diff: fix.diff,
      changedFiles: fix.files,
      closestAttempt: undefined,
    });
    Object.assign(this.outcome.evidence, this.evidence.get(attempt.index));
  }

  finish(reason: Outcome["stopReason"], message: string): Outcome {
    this.log.close();
    Object.assign(this.outcome, { stopReason: reason, message });
    this.costs.settle(this.outcome.cost);
    return this.outcome;
  }

  /** In candidate order: the attempt is reported, and kept as the closest attempt if it passes more visible tests than any before it. */
  private released(attempt: Attempt, diff: (() => CandidateDiff) | undefined): void {
    const where = attempt.file !== undefined && attempt.line !== undefined ? ` (${attempt.file}:${attempt.line})` : "";
    this.task.onProgress?.({
      kind: "attempt",
      index: attempt.index,
      total: Math.max(this.total(), attempt.index),
      description: `${attempt.description}${where}`,
      passed: attempt.passed,
      failed: attempt.failed,
      limit: attempt.limit,
    });
    if (
      this.outcome.status === "fixed" ||
      attempt.result === "plausible" ||
      !diff ||
      attempt.passed <= (this.outcome.closestAttempt?.passed ?? 0)
    )
      return;
    const { diff: text, files } = diff();
    this.outcome.closestAttempt = { diff: text, files, passed: attempt.passed, failed: attempt.failed };
  }
}

/** The report an attempt whose edits did not apply stands on. */
function editFailure(message: string): TestReport {
  return {
    run: {
      argv: [],
      exitCode: null,
      signal: null,
      timedOut: false,
      durationMs: 0,
      output: message,
      outputBytes: message.length,
      outputTruncated: false,
      isolation: "none",
    },
    tests: [{ id: "(edits)", name: "(edits)", status: "error", message }],
    source: "none",
  };
}

/** The same tests, whatever their order. */
function sameSelection(a: TestSelection, b: TestSelection): boolean {
  if (a.kind === "all" || b.kind === "all") return a.kind === b.kind;
  const sorted = (ids: string[]) => JSON.stringify([...new Set(ids)].sort());
  return sorted(a.ids) === sorted(b.ids);
}
