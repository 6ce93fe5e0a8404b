// One shape for every test run, whatever the runner: per-test results plus how the
// run itself went. Parsed from JUnit XML first, from console output second.

export type TestStatus = "pass" | "fail" | "error" | "skip";

export type TestCaseResult = {
  /** Stable id usable for selection (pytest node id, "file > suite > name", ...). */
  id: string;
  name: string;
  file?: string | undefined;
  status: TestStatus;
  durationMs?: number | undefined;
  /** Failure or error message (first line of the assertion, exception type and text). */
  message?: string | undefined;
  /** Full failure text: traceback or stack. */
  details?: string | undefined;
};

export type Isolation = "bwrap" | "unshare" | "none";

/** A limit that stopped the run, named for the report ("timed out after 600 s"); `test-time`: one of its tests was stopped by the per-test limit, the run went on. */
export type RunLimit = {
  name: "wall-time" | "test-time" | "cpu-time" | "processes" | "disk" | "file-size" | "memory" | "cancelled";
  message: string;
};

export type RunResult = {
  argv: string[];
  exitCode: number | null;
  signal: string | null;
  timedOut: boolean;
  durationMs: number;
  /** Interleaved stdout and stderr, capped. */
  output: string;
  outputBytes: number;
  outputTruncated: boolean;
  /** How the run was isolated: our sandbox's level, or a GitHub Actions runner. */
  isolation: Isolation | "actions";
  /** The command could not be started at all (not found, not executable). */
  spawnError?: string | undefined;
  /** The sandbox limit that stopped the run, when one did. */
  limit?: RunLimit | undefined;
};

export type TestReport = {
  run: RunResult;
  tests: TestCaseResult[];
  source: "junit" | "console" | "none";
};

export function countByStatus(tests: readonly TestCaseResult[]): Record<TestStatus, number> {
  const counts: Record<TestStatus, number> = { pass: 0, fail: 0, error: 0, skip: 0 };
  for (const t of tests) counts[t.status] += 1;
  return counts;
}

export function failingTests(report: TestReport): TestCaseResult[] {
  return report.tests.filter((t) => t.status === "fail" || t.status === "error");
}

/** The run ended by itself: no limit stopped it (not even one test's), no signal, and it started. */
export function finishedOnItsOwn(run: RunResult): boolean {
  return !run.limit && !run.timedOut && !run.signal && !run.spawnError;
}

/** Every selected test ran and passed, and the runner agreed (exit 0). */
export function allPassed(report: TestReport): boolean {
  return (
    report.run.exitCode === 0 && !report.run.timedOut && report.tests.length > 0 && failingTests(report).length === 0
  );
}
