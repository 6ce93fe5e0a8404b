// What a door (CLI fix, App issue job, App red-build repair, Action, eval) hands the job
// pipeline: the task's input and options (where the door differs from the others, as a
// value), and its ports (how it installs, which verifier, the model, memory, strategy, and
// how progress is shown). The pipeline owns the stages' order and the outcome.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { Trigger } from "../engine/build-task.ts";
import type { Recalled } from "../engine/memory/memory-pool.ts";
import type { Outcome, ProgressEvent, Strategy, Task, VisibleTests } from "../engine/task.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { InstallResult } from "../verify/install/run-install.ts";
import type { Verifier } from "../verify/local-verifier.ts";
import type { SetupResult } from "../verify/run-setup.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { TestReport } from "../verify/test-report.ts";

export type TaskSandbox = Task["sandbox"];

/** The stages, in the order they run. */
export const STAGES = [
  "runner",
  "install",
  "verifier",
  "setup",
  "baseline",
  "visible",
  "memory",
  "strategy",
  "run",
  "post-checks",
] as const;
export type StageName = (typeof STAGES)[number];

export type PipelineInput = {
  /** The checkout the engine works in (the door made it: a git worktree, a clone, a temp folder). */
  workspace: string;
  config: RepoConfig;
  trigger: Trigger;
  /** The test command, when the door overrides the repository's (`--test-cmd`). */
  testCommand?: string | null | undefined;
  /** A runner the door already detected (the red build parsed CI's logs with it). */
  runner?: TestRunner | undefined;
  /** The sandbox of every run, from the config once the install's variables are in it. */
  sandboxFor: (config: RepoConfig) => TaskSandbox;
  /** Run the repository's setup command (false: the door already did, in both checkouts). Default true. */
  setup?: boolean | undefined;
  /** Find the visible tests from a run of the whole suite when none are named. Default true. */
  baseline?: boolean | undefined;
  /** Reproduce an issue whose tests all pass (default: when there is a model). */
  canReproduce?: boolean | undefined;
  /** Keep the whole suite as the regression gate. Default true. */
  regression?: boolean | undefined;
  /** Check the diff landed, its policy and its behaviour before the outcome is published. Default true. */
  postChecks?: boolean | undefined;
  budget?: Task["budget"] | undefined;
  signal?: AbortSignal | undefined;
};

export type VerifierPick = {
  verifier: Verifier;
  probe?: Verifier | undefined;
  /** Candidates verified at once (the Actions backend runs several). */
  parallelism?: number | undefined;
};

/** What the pipeline tells the door as it goes; a door shows what it wants of it. */
export type PipelineEvent =
  | { stage: "runner"; runner: TestRunner }
  | { stage: "install"; install: InstallResult }
  | { stage: "setup"; setup: SetupResult }
  | { stage: "baseline"; baseline: TestReport; runner: TestRunner }
  | { stage: "visible"; visible: VisibleTests; why: string }
  | { stage: "strategy"; strategy: Strategy }
  | { stage: "run"; outcome: Outcome }
  | { stage: "post-checks"; outcome: Outcome; passed: boolean };

/** A phase still running after a while: shown so a long wait is not taken for a hang. */
export type Heartbeat = { stage: StageName; elapsedMs: number; doing: string };

/** The heartbeat's time source: a port, so tests drive it. */
export type HeartbeatClock = {
  now(): number;
  /** Calls `tick` every `ms` until the returned function is called. */
  every(ms: number, tick: () => void): () => void;
};

export type PipelineProgress = {
  /** A stage finished; awaited before the next starts (a door may record it). */
  stage?: ((event: PipelineEvent) => void | Promise<void>) | undefined;
  /** The engine's own progress (plan, attempts). */
  engine?: ((event: ProgressEvent) => void) | undefined;
  heartbeat?: ((beat: Heartbeat) => void) | undefined;
};

export type PipelinePorts = {
  /** Installs the dependencies (from the door's cache); none: nothing is installed. */
  install?: ((config: RepoConfig, sandbox: TaskSandbox) => Promise<InstallResult>) | undefined;
  verifier: (runner: TestRunner, config: RepoConfig, sandbox: TaskSandbox) => Promise<VerifierPick>;
  /** The model, built when first needed (after the baseline, so its time budget starts there). */
  llm?: (() => LlmClient | undefined) | undefined;
  /** Plans of similar tasks done before. */
  recall?: (() => readonly Recalled[] | Promise<readonly Recalled[]>) | undefined;
  /** The strategy, from the model (if any) and the recalled plans (formatted for the prompt). */
  strategy: (choice: { llm: LlmClient | undefined; memory: string }) => Strategy;
  progress?: PipelineProgress | undefined;
  /** Time for the heartbeat (tests inject one). */
  clock?: HeartbeatClock | undefined;
};

/** Why the pipeline stopped before the engine ran; the door says it its own way. */
export type PipelineStop =
  | { stage: "runner"; error: Error }
  | { stage: "setup"; message: string }
  | { stage: "visible"; kind: "broken" | "nothing"; message: string; hint: string | undefined };

export type PipelineResult = {
  outcome: Outcome;
  stop?: PipelineStop | undefined;
  runner?: TestRunner | undefined;
  install?: InstallResult | undefined;
  baseline?: TestReport | undefined;
  visible?: VisibleTests | undefined;
};
