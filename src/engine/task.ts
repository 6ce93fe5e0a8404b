// What a strategy is given (Task) and what it returns (Outcome): the typed values that
// flow between the CLI / App / evaluation harness and the engine.
import type { TestSelection } from "../verify/runners/test-runner.ts";
import type { InstallSummary } from "../verify/install/run-install.ts";
import type { Verifier } from "../verify/local-verifier.ts";
import type { SandboxOptions } from "../verify/sandbox/run-sandboxed.ts";
import type { TestReport, TestStatus } from "../verify/test-report.ts";
import type { PolicyVerdict } from "../workspace/diff-policy.ts";
import type { IssueCalls } from "./behaviour/behaviour-calls.ts";
import type { BehaviourTable } from "./behaviour/behaviour-table.ts";
import type { FixReview } from "./review/review-fix.ts";
import type { CandidateLimitSettings } from "./candidate-limits.ts";

export type ProgressEvent =
  | { kind: "stage"; stage: string; detail?: string }
  | {
      kind: "attempt";
      index: number;
      total: number;
      description: string;
      passed: number;
      failed: number;
      limit?: string | undefined;
    };

/** The tests a task is about: a selection of existing tests, or none yet: a test that reproduces the described bug is to be written first. */
export type VisibleTests = TestSelection | { kind: "reproduce" };

/** A reproduction test the engine wrote and proved failing on the unchanged code, as the strategies that work on it see it. */
export type Reproduction = { path: string; content: string; testIds: string[]; failure: string };

export type Task = {
  /** Directory the strategy may edit (a worktree or a scratch copy, never the user's checkout). */
  workspace: string;
  /** Tests the engine must make pass and may look at; `reproduce`: none fails yet, an LLM strategy writes one from the description first. */
  visible: VisibleTests;
  /** The wider suite run as a regression gate after a candidate passes the visible tests. */
  regression?: TestSelection | undefined;
  /**
   * The whole suite's run on this unchanged workspace (the job's baseline): the regression
   * gate's first run when it is the whole suite, instead of running it again. Dropped by
   * whoever changes the workspace before the strategy starts (a reproduction test written).
   */
  suiteBefore?: TestReport | undefined;
  verifier: Verifier;
  /** Runs that need files or environment on our side (coverage, traces, instrumented logging): the local sandbox. Defaults to `verifier`. */
  probe?: Verifier | undefined;
  /** Sandbox settings for extra runs a strategy makes (coverage), as given to the verifier (it adds what its runner needs). */
  sandbox: Omit<SandboxOptions, "cwd">;
  runnerName: string;
  /** The command's own arguments to its runner (pytest's options and paths): runs a strategy builds itself (coverage) keep them. */
  commandArgs?: string[] | undefined;
  isTestFile: (path: string) => boolean;
  budget: { candidates: number; minutes: number };
  /** How candidates' time limits follow the unchanged code's timings (test.candidateLimit); the defaults when absent. */
  candidateLimit?: CandidateLimitSettings | undefined;
  /**
   * The unchanged code's run of the whole suite, when one was made before the strategy (the
   * pipeline's baseline): its timings limit the strategy's own runs of the unchanged code, so
   * a test that loops there is stopped within seconds instead of again at the first run's limit.
   * The same report as `suiteBefore`, but kept when the workspace changes (a new test does not
   * change the other tests' timings).
   */
  suiteBaseline?: TestReport | undefined;
  /** How many independent candidates may be validated at once (each in its own copy). */
  parallelism?: number | undefined;
  description?: string | undefined;
  /** What an earlier mechanical pass learned (suspicious lines, a near-miss edit), for a model run after it. */
  findings?: PriorFindings | undefined;
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  signal?: AbortSignal | undefined;
};

/** The template pass's findings: lines spectrum-based localisation ranks first, and the edit that passed the most visible tests. */
export type PriorFindings = {
  suspicious: Array<{ file: string; line: number; score: number }>;
  nearMiss?: { diff: string; passed: number; failed: number } | undefined;
};

export type TestEvidence = {
  command: string[];
  /** The sandbox's isolation for this run: bwrap, unshare or none. */
  isolation: string;
  passed: number;
  failed: number;
  skipped: number;
  tests: Array<{ id: string; status: TestStatus; message?: string | undefined }>;
  /** The sandbox limit that stopped the run ("timed out after 600 s"), when one did. */
  limit?: string | undefined;
};

export type Attempt = {
  index: number;
  description: string;
  /** `tampering`: the candidate stopped tests that ran on the unchanged code (skipped, deselected, no longer collected); `reason` names them. */
  result:
    | "still-failing"
    | "visible-regressed"
    | "regression-failed"
    | "plausible"
    | "edit-failed"
    | "timed-out"
    | "tampering"
    | "refused";
  /** Why the attempt was refused (`refused`: the model's review of a mechanical edit that passes the tests), when its result alone does not say (tampering: which tests stopped running). */
  reason?: string | undefined;
  passed: number;
  failed: number;
  /** A run of this candidate stopped by a limit ("timed out after 10 s (the candidate limit: …)"). */
  limit?: string | undefined;
  /** Template strategy: the repair template, where it applied and its score. */
  family?: string | undefined;
  file?: string | undefined;
  line?: number | undefined;
  score?: number | undefined;
  /** LLM strategies: the error analysis that led to this attempt. */
  analysis?: string | undefined;
};

/** `refused`: every mechanical edit that passed the tests was refused by the model's review; `not-reproduced`: no test could be written that fails for the reported reason; `broken-tests`: the test command does not load the tests; `no-change`: the model judged that the code needs no change; `contradicts-issue`: the change passes the tests but, on inputs the model wrote from the issue, does not give what the issue expects. */
export type StopReason =
  | "solved"
  | "budget"
  | "exhausted"
  | "iterations"
  | "stuck"
  | "nothing-to-fix"
  | "unsupported"
  | "error"
  | "cancelled"
  | "policy"
  | "planned"
  | "not-reproduced"
  | "broken-tests"
  | "no-change"
  | "refused"
  | "contradicts-issue";

/** A plan SLPW sampled or revised: its verification's score (tests whose walk-through matched, of those walked through), when verified. */
export type SampledPlan = { id: string; parent?: string | undefined; steps: string[]; right?: number; of?: number };
/** An SLPW program: its plan, the program it refines (if any), and the visible tests it passed. */
export type ProgramScore = { id: string; plan: string; parent?: string | undefined; passed: number; of: number };
/** A SEIDR candidate: its attempt's index and the fraction of visible tests it passed. */
export type ScoredCandidate = { id: number; score: number; parent?: number | undefined };
export type SearchSummary =
  | {
      kind: "slpw";
      /** Every plan, sampled (p1…pk) or revised (p1.r0…), in the order they were made. */
      plans: SampledPlan[];
      /** How many of the k samples differ in their steps. */
      distinct: number;
      samples: number;
      /** The plans that became programs, in the bandit's order; the first that passed is `chosen`. */
      implemented: string[];
      chosen?: string | undefined;
      /** Every program run, in order (a plan's, then the refinements UCB chose), with the visible tests it passed; the fix is `chosenProgram`. */
      programs: ProgramScore[];
      chosenProgram?: string | undefined;
    }
  | {
      kind: "seidr";
      drafts: ScoredCandidate[];
      /** Per generation: the beam repaired (each parent's N repairs are the next population) and the candidates replaced (dropped by the ranking). */
      generations: Array<{
        generation: number;
        repaired: ScoredCandidate[];
        replaced: ScoredCandidate[];
        children: ScoredCandidate[];
      }>;
    };

export type PlanVerificationEntry = { test: string; derived: string; expected: string; matches: boolean };

export type Outcome = {
  strategy: string;
  status: "fixed" | "not-fixed";
  stopReason: StopReason;
  message: string;
  plan: {
    localisation: Array<{ file: string; line: number; score: number; failedCovering: number; passedCovering: number }>;
    fix?: { family: string; description: string; file: string; line: number; score: number } | undefined;
    /** LLM strategies: the plan, its verification on the visible tests, and whether it was verified. */
    steps?: string[] | undefined;
    verification?: PlanVerificationEntry[] | undefined;
    verified?: boolean | undefined;
    planIterations?: number | undefined;
    /** SLPW and SEIDR: what their search chose among, for a reader of the report. */
    search?: SearchSummary | undefined;
    /** Set by a strategy whose plan prompt held plans recalled from earlier fixes (RGD memory). */
    memoryShown?: boolean | undefined;
    /** Those earlier fixes, named for the report (set by the pipeline, which recalled them). */
    recalled?: Array<{ task: string; score: number }> | undefined;
  };
  evidence: {
    before?: TestEvidence | undefined;
    after?: TestEvidence | undefined;
    regressionBefore?: TestEvidence | undefined;
    regressionAfter?: TestEvidence | undefined;
    /** A reproduction test the engine wrote (a new file) and proved failing on the unchanged code; `testIds` as the runner reported them. */
    reproduction?: { path: string; testId: string; testIds: string[]; failure: string; attempts: number } | undefined;
  };
  diff: string;
  changedFiles: string[];
  /** When not fixed: the diff of the attempt that passed the most visible tests (for a draft PR, by config). */
  closestAttempt?: { diff: string; files: string[]; passed: number; failed: number } | undefined;
  /** A mechanical (template) edit's review: accepted or refused by the model, or not reviewed (no model); absent for a model's own fix. */
  review?: FixReview | undefined;
  /** The calls the model wrote from the issue with the reproduction test, before any fix: what the behaviour check runs (when usable). */
  issueCalls?: IssueCalls | undefined;
  /** A fix's outputs on inputs the model wrote from the issue, before and after it (or why there is none), once checked. */
  behaviour?: BehaviourTable | undefined;
  /** The diff policy and test-tampering verdict on the final diff, once checked. */
  policy?: PolicyVerdict | undefined;
  /** How the dependencies the tests need got into the checkout, set by the entry point that installed them. */
  dependencies?: InstallSummary | undefined;
  attempts: Attempt[];
  cost: {
    /** Calls that reached the model (billed). */
    llmCalls: number;
    /** Answers a cache in front of the model served again: not billed, not in the tokens. */
    cachedCalls: number;
    promptTokens: number;
    completionTokens: number;
    /** Estimated model spend in US dollars (price table of the model). */
    dollars: number;
    /** Seconds spent waiting on the model. */
    llmSeconds: number;
    testRuns: number;
    testSeconds: number;
    wallSeconds: number;
    candidatesGenerated: number;
    candidatesTried: number;
  };
};

export type Strategy = { name: string; run(task: Task): Promise<Outcome> };

/** The visible tests as a selection the verifier can run; a task still to be reproduced has none. */
export function visibleSelection(task: Task): TestSelection | undefined {
  return task.visible.kind === "reproduce" ? undefined : task.visible;
}

export function evidenceOf(report: TestReport): TestEvidence {
  const tests = report.tests.map((t) => ({ id: t.id, status: t.status, message: t.message }));
  return {
    command: report.run.argv,
    isolation: report.run.isolation,
    passed: tests.filter((t) => t.status === "pass").length,
    failed: tests.filter((t) => t.status === "fail" || t.status === "error").length,
    skipped: tests.filter((t) => t.status === "skip").length,
    tests,
    ...(report.run.limit ? { limit: report.run.limit.message } : {}),
  };
}

/** An Outcome with nothing done yet, for a strategy to fill in. */
export function emptyOutcome(strategy: string): Outcome {
  return {
    strategy,
    status: "not-fixed",
    stopReason: "exhausted",
    message: "",
    plan: { localisation: [] },
    evidence: {},
    diff: "",
    changedFiles: [],
    attempts: [],
    cost: {
      llmCalls: 0,
      cachedCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      dollars: 0,
      llmSeconds: 0,
      testRuns: 0,
      testSeconds: 0,
      wallSeconds: 0,
      candidatesGenerated: 0,
      candidatesTried: 0,
    },
  };
}
