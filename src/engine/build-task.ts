// One task builder for every door (CLI `fix`, the App's issue and red-build jobs, `eval`):
// from the repository's workspace, what triggered the work, the repository's config and
// the model client (or none), the visible tests, the budgets, the sandbox and the
// strategy are decided here, so the same input behaves the same whichever way it came.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { brokenRunReason } from "../verify/load-failure.ts";
import type { Verifier } from "../verify/local-verifier.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import { failingTests, type TestReport } from "../verify/test-report.ts";
import { isTestFile } from "./is-test-file.ts";
import { lpwStrategy } from "./lpw/lpw-strategy.ts";
import { withReproduction } from "./reproduce/with-reproduction.ts";
import { strategyByName } from "./strategies.ts";
import type { ProgressEvent, Strategy, Task, VisibleTests } from "./task.ts";
import { sandboxOptionsFor } from "../verify/sandbox/sandbox-options.ts";

/** What asked for the work. */
export type Trigger =
  /** An issue (or `autogen-bot fix --issue`): its text; `tests` when the person named the tests that show the bug. */
  | { kind: "issue"; text: string; tests?: string[] | undefined }
  /** Failing tests without an issue (`autogen-bot fix` with no --issue, a red build, an eval task): `tests` when already known. */
  | { kind: "failing-tests"; description?: string | undefined; tests?: string[] | undefined };

export type VisibleChoice =
  | { kind: "ok"; visible: VisibleTests; why: string }
  /** The test command does not load the tests: stop before any model call. */
  | { kind: "broken"; message: string }
  /** Nothing fails and nothing can be reproduced. */
  | { kind: "nothing"; message: string };

/**
 * The visible tests from a baseline run of the whole suite: the tests named, else the
 * failing ones, else (an issue, with a model) a test reproducing the issue. A baseline
 * that loaded no test, or failed to load test files, is a broken test command.
 */
export function chooseVisible(
  trigger: Trigger,
  baseline: TestReport | undefined,
  workspace: string,
  options: { canReproduce: boolean },
): VisibleChoice {
  if (trigger.tests?.length)
    return {
      kind: "ok",
      visible: { kind: "tests", ids: trigger.tests },
      why: `the ${trigger.tests.length} test(s) named`,
    };
  if (!baseline) return { kind: "ok", visible: { kind: "all" }, why: "the whole suite" };
  const broken = brokenRunReason(baseline, workspace);
  if (broken) return { kind: "broken", message: `the test command is broken: ${broken}` };
  const failing = failingTests(baseline);
  if (failing.length > 0)
    return {
      kind: "ok",
      visible: { kind: "tests", ids: failing.map((t) => t.id) },
      why: `${failing.length} failing test(s)`,
    };
  if (trigger.kind === "issue" && options.canReproduce)
    return {
      kind: "ok",
      visible: { kind: "reproduce" },
      why: `all ${baseline.tests.length} tests pass: a test reproducing the issue is written first`,
    };
  return {
    kind: "nothing",
    message: `all ${baseline.tests.length} tests pass${trigger.kind === "issue" ? " and reproducing the issue from its description needs a model (configure an LLM endpoint)" : ""}`,
  };
}

export type StrategyChoice = {
  config: RepoConfig;
  llm: LlmClient | undefined;
  /** An explicit choice (CLI `--strategy`, an eval column); else the repository's, or `template` without a model. */
  name?: string | undefined;
  memory?: string | undefined;
  /** `/autogen plan`: LPW stops once the plan is verified. */
  planOnly?: boolean | undefined;
  /** The template first pass as configured (default), or off (eval compares strategies alone). */
  templateFirstPass?: boolean | undefined;
};

/** The strategy for a task: throws with an actionable sentence when it cannot be built. */
export function chooseStrategy(choice: StrategyChoice): Strategy {
  const { llm, config } = choice;
  if (choice.planOnly) {
    if (!llm) throw new Error("`/autogen plan` needs a model, and this installation has no LLM endpoint configured");
    return withReproduction(
      lpwStrategy({ llm, planOnly: true, ...(choice.memory ? { memory: choice.memory } : {}) }),
      llm,
    );
  }
  const name = choice.name ?? (llm ? config.strategy.name : "template");
  return strategyByName(name, {
    llm,
    strategy: { ...config.strategy, templateFirstPass: choice.templateFirstPass ?? config.strategy.templateFirstPass },
    memory: choice.memory,
  });
}

export function taskBudget(
  config: RepoConfig,
  overrides: { candidates?: number | undefined; minutes?: number | undefined } = {},
): Task["budget"] {
  return {
    candidates: overrides.candidates ?? config.budgets.iterations * 20,
    minutes: overrides.minutes ?? config.budgets.minutes,
  };
}

export function taskSandbox(config: RepoConfig, signal?: AbortSignal): Task["sandbox"] {
  return sandboxOptionsFor(config.test, signal);
}

export type TaskInput = {
  workspace: string;
  trigger: Trigger;
  config: RepoConfig;
  runner: Pick<TestRunner, "name" | "commandEnv" | "commandArgs">;
  verifier: Verifier;
  probe?: Verifier | undefined;
  visible: VisibleTests;
  /** The job's baseline run of the whole suite on this workspace, when it made one. */
  suiteBefore?: TestReport | undefined;
  sandbox: Task["sandbox"];
  budget?: Task["budget"] | undefined;
  parallelism?: number | undefined;
  signal?: AbortSignal | undefined;
  onProgress?: ((event: ProgressEvent) => void) | undefined;
  /** The unchanged code's whole-suite run already made (the pipeline's baseline). */
  suiteBaseline?: TestReport | undefined;
};

/** The Task itself; the whole suite is the regression gate. */
export function buildTask(input: TaskInput): Task {
  const description = input.trigger.kind === "issue" ? input.trigger.text : input.trigger.description;
  return {
    workspace: input.workspace,
    visible: input.visible,
    regression: { kind: "all" },
    suiteBefore: input.suiteBefore,
    verifier: input.verifier,
    probe: input.probe,
    // Extra runs (coverage) run the tests as the command does: with its own environment assignments.
    sandbox: input.runner.commandEnv
      ? { ...input.sandbox, env: { ...input.sandbox.env, ...input.runner.commandEnv } }
      : input.sandbox,
    runnerName: input.runner.name,
    commandArgs: input.runner.commandArgs,
    isTestFile,
    budget: input.budget ?? taskBudget(input.config),
    candidateLimit: input.config.test.candidateLimit,
    suiteBaseline: input.suiteBaseline,
    parallelism: input.parallelism,
    description,
    signal: input.signal,
    onProgress: input.onProgress,
  };
}
