// A test runner as the verifier sees it: how to run everything or a selection, where it
// writes a machine-readable report, and how to read the results back.
import type { TestCaseResult } from "../test-report.ts";

export type TestSelection = { kind: "all" } | { kind: "tests"; ids: string[] };

/** Limits for one run the runner enforces itself: one test's CPU time (`perTestMs`) and wall-clock time (`perTestWallMs`, for a test that blocks) stop that test, not the run. */
export type RunnerOptions = {
  perTestMs?: number | undefined;
  perTestWallMs?: number | undefined;
  /** A run under NODE_V8_COVERAGE (the localiser's): the runner's own coverage off, its instrumented code would shift V8's offsets off the source and slow each run. */
  v8Coverage?: boolean;
  /** A directory of ours where the runner keeps its transform cache across runs of the same code (the sandbox's /tmp is new in each run). */
  cacheDir?: string | undefined;
};

/** The extraEnv entry naming `RunnerOptions.cacheDir` (a directory of ours, writable in the sandbox like the coverage dir). */
export const RUNNER_CACHE_ENV = "AUTOGEN_RUNNER_CACHE";

/** `tap`: tape or another TAP producer; `custom`: a configured command that is none of the known runners, judged by its TAP output if any, else its exit code. */
export type RunnerName =
  | "pytest"
  | "unittest"
  | "node-test"
  | "vitest"
  | "jest"
  | "mocha"
  | "ava"
  | "tap"
  | "go"
  | "cargo"
  | "maven"
  | "gradle"
  | "custom";

export type TestRunner = {
  name: RunnerName;
  /** Why this runner was chosen (the file or setting that said so). */
  evidence: string;
  /** argv for the selection; `reportPath` is a file outside the repository we read afterwards. */
  command(selection: TestSelection, reportPath: string, options?: RunnerOptions): string[];
  reportFormat: "junit" | "none";
  /** Results from console output when no report was written. */
  parseConsole?: (output: string) => TestCaseResult[];
  /** Adds what the runner needs to the sandbox environment (e.g. our pytest plugin on PYTHONPATH). */
  prepareEnv?: (env: Record<string, string> | undefined, options?: RunnerOptions) => Record<string, string>;
  /**
   * A selection can run more than the selected tests (no name filter, or one matching by
   * pattern): the verifier keeps only the selected tests' results (see keepSelected).
   */
  selectsByFiltering?: boolean;
  /** Environment assignments the repository's command makes (`PYTHONPATH=src pytest`), part of every run of its tests. */
  commandEnv?: Record<string, string>;
  /** The command's own arguments to the runner (pytest's options and paths), for runs that build their own command (the coverage trace). */
  commandArgs?: string[];
  /** Directories to put on PATH (e.g. node_modules/.bin). */
  pathPrefix: string[];
};

export class NoTestsDetectedError extends Error {
  constructor(dir: string, lookedFor: string[]) {
    super(
      `no test command found in ${dir}: looked for ${lookedFor.join(", ")}. Set test.command in .github/autogen.yml (or pass --test-cmd).`,
    );
    this.name = "NoTestsDetectedError";
  }
}

/** Test ids come from untrusted output and issue text: never let one become an option. */
export function safeIds(ids: string[]): string[] {
  for (const id of ids) {
    if (id.startsWith("-") || /[\0\n\r]/.test(id))
      throw new Error(`refusing test id that could be read as an option: ${JSON.stringify(id)}`);
  }
  return ids;
}

export function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}
