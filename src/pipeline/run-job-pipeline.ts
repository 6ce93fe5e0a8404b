// The one job pipeline behind every door: runner → install → verifier → setup → baseline →
// visible tests → memory → strategy → run → post-checks → outcome. A door supplies the
// workspace and its ports (pipeline-ports.ts); what it does with the outcome (a branch, a
// PR, a comment, a score) is its own. A stop before the engine is an outcome too, with the
// stage that stopped it, so each door can say it its own way.
import { buildTask, chooseVisible } from "../engine/build-task.ts";
import { formatMemory } from "../engine/memory/memory-pool.ts";
import { emptyOutcome, evidenceOf, type Outcome, type VisibleTests } from "../engine/task.ts";
import { configWithInstall, type InstallResult } from "../verify/install/run-install.ts";
import { missingDependencies, runSetup } from "../verify/run-setup.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { TestReport } from "../verify/test-report.ts";
import { PhaseHeartbeat, systemClock } from "./heartbeat.ts";
import type { PipelineEvent, PipelineInput, PipelinePorts, PipelineResult, PipelineStop } from "./pipeline-ports.ts";
import { postChecks } from "./post-checks.ts";

const NOT_INSTALLED: InstallResult = { ran: false, reason: "the door installs nothing" };

export async function runJobPipeline(input: PipelineInput, ports: PipelinePorts): Promise<PipelineResult> {
  const heartbeat = new PhaseHeartbeat(ports.clock ?? systemClock, ports.progress?.heartbeat);
  const tell = async (event: PipelineEvent) => {
    heartbeat.shown();
    await ports.progress?.stage?.(event);
  };
  try {
    return await stages(input, ports, heartbeat, tell);
  } finally {
    heartbeat.stop();
  }
}

type Tell = (event: PipelineEvent) => Promise<void>;

async function stages(
  input: PipelineInput,
  ports: PipelinePorts,
  beat: PhaseHeartbeat,
  tell: Tell,
): Promise<PipelineResult> {
  const { workspace, trigger } = input;
  const stopName = input.config.strategy.name;

  beat.enter("runner", "detecting the test runner");
  let runner: TestRunner;
  try {
    runner = input.runner ?? detectRunner(workspace, input.testCommand ?? input.config.test.command);
  } catch (error) {
    return stopped(stopName, { stage: "runner", error: error as Error }, (error as Error).message, {});
  }
  await tell({ stage: "runner", runner });

  beat.enter("install", "installing the dependencies");
  const install = ports.install ? await ports.install(input.config, input.sandboxFor(input.config)) : NOT_INSTALLED;
  if (ports.install) await tell({ stage: "install", install });
  const config = configWithInstall(input.config, install);
  const sandbox = input.sandboxFor(config);
  const dependencies = install.ran ? install.summary : undefined;

  beat.enter("verifier", "choosing the verifier");
  const pick = await ports.verifier(runner, config, sandbox);

  if (input.setup !== false) {
    beat.enter("setup", `the setup command \`${config.test.setup ?? ""}\``);
    const setup = await runSetup(workspace, config.test, sandbox);
    if (setup.ran) {
      await tell({ stage: "setup", setup });
      if (!setup.ok) {
        const stop = { stage: "setup", message: setup.message } as const;
        return stopped(stopName, stop, setup.message, { runner, install, dependencies });
      }
    }
  }

  let baseline: TestReport | undefined;
  if (input.baseline !== false && !trigger.tests?.length) {
    beat.enter("baseline", `the whole suite (${runner.name}) before any change`);
    baseline = await pick.verifier.run(workspace, { kind: "all" });
    await tell({ stage: "baseline", baseline, runner });
  }

  beat.enter("visible", "choosing the visible tests");
  const llm = ports.llm?.();
  // From here the model could be asked: the first call's delay is timed from this mark too.
  llm?.budget.markReady();
  const canReproduce = input.canReproduce ?? llm !== undefined;
  const choice = chooseVisible(trigger, baseline, workspace, { canReproduce });
  if (choice.kind !== "ok") {
    // Nothing the engine could work on: said before any model call.
    const failedInstall = install.ran && !install.ok ? install.message : undefined;
    const hint = choice.kind === "broken" ? (failedInstall ?? missingDependencies(workspace, config.test)) : undefined;
    const stop: PipelineStop = { stage: "visible", kind: choice.kind, message: choice.message, hint };
    const message = hint ? `${choice.message}; likely cause: ${hint}` : choice.message;
    const result = stopped(ports.llm && !llm ? "template" : stopName, stop, message, { runner, install, dependencies });
    result.baseline = baseline;
    if (baseline) result.outcome.evidence.before = evidenceOf(baseline);
    return result;
  }
  await tell({ stage: "visible", visible: choice.visible, why: choice.why });

  beat.enter("memory", "recalling similar tasks");
  const recalled = (await ports.recall?.()) ?? [];
  const memory = formatMemory(recalled);
  beat.enter("strategy", "choosing the strategy");
  const strategy = ports.strategy({ llm, memory });
  await tell({ stage: "strategy", strategy });

  beat.enter("run", `the ${strategy.name} strategy`);
  const task = buildTask({
    workspace,
    trigger,
    config,
    runner,
    verifier: pick.verifier,
    probe: pick.probe,
    visible: choice.visible,
    suiteBefore: baseline,
    sandbox,
    budget: input.budget,
    parallelism: pick.parallelism,
    suiteBaseline: baseline,
    signal: input.signal,
    onProgress: (event) => {
      beat.shown(event.kind === "stage" ? event.stage : `attempt ${event.index}: ${event.description}`);
      ports.progress?.engine?.(event);
    },
  });
  const runTask = input.regression === false ? { ...task, regression: undefined } : task;
  let outcome = await strategy.run(runTask);
  let visible = choice.visible;
  if (outcome.stopReason === "nothing-to-fix" && reproducesInstead(trigger, visible, canReproduce)) {
    // The failing tests the baseline found passed when run again (a timing test on a loaded
    // machine, a flaky socket test): nothing of the issue's. With a model, the issue is reproduced instead.
    const flaky = outcome;
    visible = { kind: "reproduce" };
    await tell({ stage: "visible", visible, why: AFTER_FLAKY });
    outcome = await strategy.run({ ...runTask, visible });
    outcome.cost.testRuns += flaky.cost.testRuns;
    outcome.cost.testSeconds += flaky.cost.testSeconds;
  }
  outcome.dependencies = dependencies;
  if (outcome.plan.memoryShown)
    outcome.plan.recalled = recalled.map((r) => ({ task: r.task.split("\n")[0] ?? "", score: r.score }));
  await tell({ stage: "run", outcome });

  if (input.postChecks !== false && outcome.status === "fixed") {
    beat.enter("post-checks", "checking the diff and its behaviour");
    const behaviour = { llm, problem: task.description, runnerName: runner.name, sandbox: task.sandbox };
    await postChecks(workspace, outcome, config, behaviour);
    await tell({ stage: "post-checks", outcome, passed: outcome.status === "fixed" });
  }
  return { outcome, runner, install, baseline, visible };
}

const AFTER_FLAKY = "the failing test(s) passed when run again: a test reproducing the issue is written first";

/** An issue whose visible tests were the baseline's failures (not named ones), with a model to reproduce it. */
function reproducesInstead(trigger: PipelineInput["trigger"], visible: VisibleTests, canReproduce: boolean): boolean {
  return trigger.kind === "issue" && !trigger.tests?.length && visible.kind === "tests" && canReproduce;
}

function stopped(
  strategy: string,
  stop: PipelineStop,
  message: string,
  seen: Pick<PipelineResult, "runner" | "install"> & { dependencies?: Outcome["dependencies"] },
): PipelineResult {
  const outcome = emptyOutcome(strategy);
  outcome.stopReason = stop.stage === "visible" && stop.kind === "nothing" ? "nothing-to-fix" : "broken-tests";
  outcome.message = message;
  outcome.dependencies = seen.dependencies;
  return { outcome, stop, runner: seen.runner, install: seen.install };
}
