// The `Verifier` port: what runs a selection of a workspace's tests and returns a
// TestReport (the local sandbox in local-verifier.ts, GitHub Actions in ci/), and the
// warm slot a local verifier may offer for many runs of the same tests.
import type { TestSelection } from "./runners/test-runner.ts";
import type { SandboxOptions } from "./sandbox/run-sandboxed.ts";
import type { TestReport } from "./test-report.ts";

export type VerifierRunOptions = Omit<SandboxOptions, "cwd" | "readOnlyPaths" | "writablePaths"> & {
  /** Read-only to the tests besides the workspace's own `.git`: for a worktree, the repository's git dir (hooks, config). */
  protect?: string[];
  /** Offer warm runners for repeated runs of the same tests (`openWarm`), where the runner allows it (pytest; node --test and node scripts by a zygote). */
  warm?: boolean;
};

/**
 * A shorter wall-clock limit for one run than the test run's own (test.timeoutMinutes), and why; `perTestMs`: one
 * test's CPU time, where the runner can stop a test alone, and `perTestWallMs` its wall-clock time for a test that
 * blocks (per-test-limit.ts).
 */
export type RunTimeLimit = {
  timeoutMs: number;
  reason: string;
  perTestMs?: number | undefined;
  perTestWallMs?: number | undefined;
};

export type Verifier = {
  /**
   * `extraEnv`: our own additions for this run only (e.g. NODE_V8_COVERAGE), never repository input.
   * `limit`: a tighter wall-clock limit for this run; a run it stops has `run.limit` "wall-time" with its reason.
   */
  run(
    workspace: string,
    selection: TestSelection,
    extraEnv?: Record<string, string>,
    limit?: RunTimeLimit,
  ): Promise<TestReport>;
  /** A warm runner for many runs of the same tests on one workspace whose source changes between them (a validation slot); absent where none applies. */
  openWarm?(workspace: string): WarmSlot;
  /**
   * The next `size` runs of one selection are candidates validated side by side: a verifier that
   * runs them together (GitHub Actions: one dispatch, a matrix job each) waits for all of them,
   * however far apart a busy machine makes them arrive. Absent where each run stands alone.
   */
  expectBatch?(size: number): void;
};

/** inProcess: warm runs a node zygote ran in its own process (single-file node --test). */
export type WarmStats = { warm: number; cold: number; starts: number; coldReasons: string[]; inProcess?: number };

export type WarmSlot = {
  /** Runs a selection on the slot's workspace as it is now: warm when it can, cold otherwise. */
  run(selection: TestSelection, limit?: RunTimeLimit): Promise<TestReport>;
  /** Starts the runner for a selection's test files now (on the unchanged code, before any candidate is written). */
  prepare(selection: TestSelection): Promise<void>;
  readonly stats: WarmStats;
  close(): Promise<void>;
};
