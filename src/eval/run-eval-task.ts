// One evaluation task end to end: materialise the repository, choose its visible tests as
// the CLI does (a local task: a baseline run, then the failing tests, else reproduction of
// its issue), let the strategy work on them only, run the post-checks every door runs (the
// diff landed, the diff policy, and with a model the behaviour table), then run the hidden
// tests once against its final code.
import { repoConfigSchema } from "../config/repo-config-schema.ts";
import type { Trigger } from "../engine/build-task.ts";
import { emptyOutcome, type Outcome, type SearchSummary, type Strategy } from "../engine/task.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { fixedWord, isUnreviewed, type FixReview } from "../engine/review/review-fix.ts";
import type { BehaviourTable } from "../engine/behaviour/behaviour-table.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { warmRunsEnabled } from "../verify/warm/warm-enabled.ts";
import { allPassed } from "../verify/test-report.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";
import { runHiddenTests, writeFiles } from "./score-hidden.ts";
import { makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";

export type EvalSettings = {
  testTimeoutMs: number;
  perTestTimeoutSeconds: number;
  budget: { candidates: number; minutes: number };
};

export type TaskResult = {
  id: string;
  bugType: string;
  strategy: string;
  verdict: "solved" | "plausible" | "not-fixed";
  /** What the bot said: fixed, or not; a mechanical edit's review (`not-reviewed`: fixed on the tests' word only). */
  status?: Outcome["status"] | undefined;
  review?: FixReview["verdict"] | undefined;
  /** A fix no one reviewed, or one whose behaviour table flags an output change the issue did not ask for: a draft. */
  unreviewed?: boolean | undefined;
  /** The headline the report gives a fix ("fixed", "passes the tests; not reviewed", the flagged changes). */
  said?: string | undefined;
  /** The behaviour table on the fix (with a model), or why there is none. */
  behaviour?: BehaviourTable | undefined;
  /** SLPW's and SEIDR's search: the plans or drafts it chose among and what it chose. */
  search?: SearchSummary | undefined;
  stopReason: Outcome["stopReason"];
  message: string;
  fix?: string | undefined;
  cost: Outcome["cost"];
  /** Candidates generated before the first one that passed the visible tests (SEIDR's EPG). */
  epg: number | undefined;
  llmWaitSeconds: number;
  /** Candidates stopped by their time limit (a loop they made endless). */
  timedOut: number;
  /** The unchanged code's run stopped a test at the per-test limit (a loop in the code itself): "timed out after 10 s in tests/test_x.py::test_y". */
  baselineStopped?: string | undefined;
};

// Plugins installed on the host would otherwise load into every run and dominate its time.
const EVAL_ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };
const EVAL_CONFIG = repoConfigSchema.parse({});

export function evalSandbox(settings: Pick<EvalSettings, "testTimeoutMs" | "perTestTimeoutSeconds">) {
  // A test that hangs (a candidate with an endless loop) fails alone instead of taking the run down.
  return {
    timeoutMs: settings.testTimeoutMs,
    env: { ...EVAL_ENV, AUTOGEN_TEST_TIMEOUT: String(settings.perTestTimeoutSeconds) },
  };
}

/**
 * `canReproduce`: the strategy has a model, so an issue whose tests pass is reproduced first.
 * `llm`: the strategy's model, which also writes the behaviour table's calls once a fix passes.
 */
export async function runEvalTask(
  task: EvalTask,
  strategy: Strategy,
  settings: EvalSettings,
  options: { canReproduce?: boolean | undefined; llm?: LlmClient | undefined } = {},
): Promise<TaskResult> {
  const workspace = await makeTempDir("autogen-eval-");
  try {
    await writeFiles(workspace, task.files);
    const sandbox = evalSandbox(settings);
    const trigger: Trigger = task.issue !== undefined ? { kind: "issue", text: task.issue } : { kind: "failing-tests" };
    const started = performance.now();
    // No install, no setup (a task is its files), no memory; the strategy is the one compared.
    const result = await runJobPipeline(
      {
        workspace,
        config: EVAL_CONFIG,
        trigger,
        sandboxFor: () => sandbox,
        setup: false,
        baseline: task.visibleFromBaseline === true,
        canReproduce: options.canReproduce ?? false,
        // Without a baseline the visible tests are the whole suite, so a regression gate would only repeat them.
        regression: task.visibleFromBaseline === true,
        budget: settings.budget,
      },
      {
        verifier: async (runner) => ({
          verifier: localVerifier(runner, { ...sandbox, warm: warmRunsEnabled(EVAL_CONFIG.test) }),
        }),
        strategy: () => strategy,
        // The model the post-checks ask for the behaviour table's calls (none: no table, and the reason).
        ...(options.llm ? { llm: () => options.llm } : {}),
      },
    );
    if (result.stop?.stage === "runner") throw result.stop.error;
    // A stop is said as chooseVisible said it (eval's table has no install to blame).
    const { stop } = result;
    const outcome: Outcome =
      stop?.stage === "visible"
        ? { ...emptyOutcome(strategy.name), stopReason: result.outcome.stopReason, message: stop.message }
        : result.outcome;
    // The test the unchanged code's run stopped (a loop in the code at fault), named in the eval line.
    const limit = result.baseline?.run.limit;
    const baselineStopped = limit?.name === "test-time" ? limit.message.split(" (")[0] : undefined;
    if (result.baseline) {
      // The baseline run is part of what the task cost, as it is for `autogen-bot fix`.
      const testSeconds = outcome.cost.testSeconds + result.baseline.run.durationMs / 1000;
      outcome.cost = {
        ...outcome.cost,
        testRuns: outcome.cost.testRuns + 1,
        testSeconds,
        wallSeconds: (performance.now() - started) / 1000,
      };
    }
    const hiddenPass = allPassed(await runHiddenTests(task, workspace, sandbox));
    return {
      id: task.id,
      bugType: task.bugType,
      strategy: strategy.name,
      verdict: hiddenPass ? "solved" : outcome.status === "fixed" ? "plausible" : "not-fixed",
      status: outcome.status,
      review: outcome.review?.verdict,
      unreviewed: isUnreviewed(outcome),
      said: outcome.status === "fixed" ? fixedWord(outcome) : undefined,
      behaviour: outcome.behaviour,
      search: outcome.plan.search,
      stopReason: outcome.stopReason,
      message: outcome.message,
      fix: outcome.plan.fix
        ? `${outcome.plan.fix.description} (${outcome.plan.fix.file}:${outcome.plan.fix.line})`
        : undefined,
      cost: outcome.cost,
      epg: outcome.status === "fixed" ? outcome.cost.candidatesTried - 1 : undefined,
      llmWaitSeconds: outcome.cost.llmSeconds,
      timedOut: outcome.attempts.filter((a) => a.result === "timed-out").length,
      baselineStopped,
    };
  } finally {
    await removeTempDir(workspace);
  }
}
