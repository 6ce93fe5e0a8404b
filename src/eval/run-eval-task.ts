// One evaluation task end to end: materialise the repository, let the strategy work on
// the visible tests only, then run the hidden tests once against its final code.
import { copyFile, mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { repoConfigSchema } from "../config/repo-config-schema.ts";
import { buildTask } from "../engine/build-task.ts";
import type { Outcome, Strategy } from "../engine/task.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import { allPassed } from "../verify/test-report.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";

export type EvalSettings = { testTimeoutMs: number; perTestTimeoutSeconds: number; budget: { candidates: number; minutes: number } };

export type TaskResult = {
  id: string;
  bugType: string;
  strategy: string;
  verdict: "solved" | "plausible" | "not-fixed";
  stopReason: Outcome["stopReason"];
  message: string;
  fix?: string | undefined;
  cost: Outcome["cost"];
  /** Candidates generated before the first one that passed the visible tests (SEIDR's EPG). */
  epg: number | undefined;
  llmWaitSeconds: number;
};

// Plugins installed on the host would otherwise load into every run and dominate its time.
const EVAL_ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };
const EVAL_CONFIG = repoConfigSchema.parse({});

export async function runEvalTask(task: EvalTask, strategy: Strategy, settings: EvalSettings): Promise<TaskResult> {
  const workspace = await mkdtemp(join(tmpdir(), "autogen-eval-"));
  const hidden = await mkdtemp(join(tmpdir(), "autogen-hidden-"));
  try {
    for (const [name, text] of Object.entries(task.files)) {
      await mkdir(dirname(join(workspace, name)), { recursive: true });
      await writeFile(join(workspace, name), text);
    }
    // A test that hangs (a candidate with an endless loop) fails alone instead of taking the run down.
    const sandbox = { timeoutMs: settings.testTimeoutMs, env: { ...EVAL_ENV, AUTOGEN_TEST_TIMEOUT: String(settings.perTestTimeoutSeconds) } };
    const runner = detectRunner(workspace);
    const verifier = localVerifier(runner, sandbox);
    // The same task builder as the CLI and the App; the visible tests are all the task's own (its hidden tests are elsewhere).
    const outcome = await strategy.run({
      ...buildTask({ workspace, trigger: { kind: "failing-tests" }, config: EVAL_CONFIG, runner, verifier, visible: { kind: "all" }, sandbox, budget: settings.budget }),
      regression: undefined,
    });
    for (const file of task.solutionFiles) {
      await mkdir(dirname(join(hidden, file)), { recursive: true });
      await copyFile(join(workspace, file), join(hidden, file));
    }
    for (const [name, text] of Object.entries(task.hiddenFiles)) {
      await mkdir(dirname(join(hidden, name)), { recursive: true });
      await writeFile(join(hidden, name), text);
    }
    const hiddenReport = await localVerifier(detectRunner(hidden), sandbox).run(hidden, { kind: "all" });
    const hiddenPass = allPassed(hiddenReport);
    return {
      id: task.id,
      bugType: task.bugType,
      strategy: strategy.name,
      verdict: hiddenPass ? "solved" : outcome.status === "fixed" ? "plausible" : "not-fixed",
      stopReason: outcome.stopReason,
      message: outcome.message,
      fix: outcome.plan.fix ? `${outcome.plan.fix.description} (${outcome.plan.fix.file}:${outcome.plan.fix.line})` : undefined,
      cost: outcome.cost,
      epg: outcome.status === "fixed" ? outcome.cost.candidatesTried - 1 : undefined,
      llmWaitSeconds: outcome.cost.llmSeconds,
    };
  } finally {
    await rm(workspace, { recursive: true, force: true });
    await rm(hidden, { recursive: true, force: true });
  }
}
