// Line coverage for JavaScript/TypeScript localisation from Node's built-in V8 coverage
// (NODE_V8_COVERAGE: per process, with each block's execution count), at a small multiple of
// the plain suite's cost: V8 coverage is per process, and one process per test cost 4 to 219
// times the suite. Here:
//   - each failing test runs alone (at most MAX_FAILING_ALONE of them): its exact spectrum;
//   - the whole suite (or the tests that passed on the unchanged code) runs once under
//     coverage: how often each line ran, over all of its tests;
//   - the suite runs once more selecting no test: how often each line ran while the test
//     files loaded (every selection loads them, these runners select by filtering);
//   - when that run had failing tests that did not run alone, they run once together.
// Ochiai's ep of a line (how many passing tests executed it) is then estimated: a line that
// runs while the files load runs in every passing test's process, ep = all passing tests
// (what one process per test gave); any other line ran ep_est = min(passing, its count in the
// passing tests' run less any failing test's count there and the loads') times in passing tests, so ep_est
// is 0 exactly when no passing test ran it and at least the true ep otherwise (a line run
// several times by one test counts more than once: an approximation, which ranks lines in
// loops lower). Each run is read back by CoverageReader (coverage-reader.ts); a test can write
// its own coverage file there, so script URLs go through the safe-path check.
import type { RunTimeLimit, Verifier } from "../../verify/local-verifier.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";
import { CoverageReader, type LineCounts } from "./coverage-reader.ts";
import type { PassedAggregate, TestSpectrum } from "./ochiai.ts";
import type { Spectra } from "./reported-files.ts";

/**
 * The failing tests run alone, each its own process; beyond this many, the first ones (by id) stand for all
 * (the others run once together). Each run pays the runner's start (5 to 30 s for jest and vitest): 5 here
 * cost ufo 8 runs; at 2 the bench's bug lines ranked where they did at 5 (bench:runners, docs/evaluation.md).
 */
export const MAX_FAILING_ALONE = 2;

/** Beyond this many characters of names, the passing tests run as the whole suite (one argument holds at most 128 KiB). */
const MAX_PATTERN_CHARS = 60_000;

/** A selection no test's title matches: the run loads the test files and runs nothing. */
export const NO_TEST_ID = "autogen no test matches this title 5f0c2e";

/** The failing tests' spectra, the passing tests in aggregate (`passed`), the runs it started (`runs`), and each run's seconds (`trace`). */
export type JsSpectra = Spectra & { passed: PassedAggregate; passing: number; runs: number; trace: string[] };

/**
 * `failing`: the failing tests' ids; `passing`: the tests that passed on the unchanged code (the
 * visible and regression ones), run once together, or "all": the whole suite once; `limitFor`: each run's limit (the candidate
 * limit, from the unchanged code's timings), so a test that loops costs seconds here too.
 */
export async function jsSpectra(
  workspace: string,
  verifier: Verifier,
  failing: readonly string[],
  passing: readonly string[] | "all",
  limitFor?: (selection: TestSelection) => RunTimeLimit | undefined,
): Promise<JsSpectra> {
  // One transform cache for all these runs of the same code (jest: else each run compiles every file again).
  const cache = await makeTempDir("autogen-runner-cache-");
  try {
    return await spectraOf(workspace, verifier, failing, passing, (selection) => ({
      limit: limitFor?.(selection),
      cache,
    }));
  } finally {
    await removeTempDir(cache);
  }
}

async function spectraOf(
  workspace: string,
  verifier: Verifier,
  failing: readonly string[],
  passing: readonly string[] | "all",
  runOptions: (selection: TestSelection) => { limit: RunTimeLimit | undefined; cache: string },
): Promise<JsSpectra> {
  const reader = new CoverageReader(workspace);
  let runs = 0;
  const trace: string[] = [];
  const covered = async (selection: TestSelection, what: string) => {
    runs += 1;
    const started = performance.now();
    const { limit, cache } = runOptions(selection);
    const result = await reader.run(verifier, selection, limit, cache);
    trace.push(
      `${what} ${((performance.now() - started) / 1000).toFixed(1)} s (coverage read ${result.readSeconds.toFixed(1)} s)`,
    );
    return result;
  };
  const loads = (await covered({ kind: "tests", ids: [NO_TEST_ID] }, "loads")).counts;
  // The whole suite when the caller runs it as its regression gate (names can miss tests: a
  // title the runner's pattern does not match), else the passing tests by name; all of them
  // too when their names make too long a pattern.
  const pattern = passing === "all" ? 0 : passing.reduce((sum, id) => sum + id.length + 8, 0);
  const whole =
    passing.length === 0
      ? { counts: new Map() as LineCounts, tests: [] }
      : await covered(
          passing === "all" || pattern > MAX_PATTERN_CHARS ? { kind: "all" } : { kind: "tests", ids: [...passing] },
          "suite",
        ).then((r) => ({ counts: r.counts, tests: r.report.tests }));
  const failingIds = new Set(failing);
  const passingIds = new Set(whole.tests.filter((t) => t.status === "pass" && !failingIds.has(t.id)).map((t) => t.id));
  // Tests that failed in that run: their executions are no passing test's.
  const failedInSuite = whole.tests.filter((t) => t.status === "fail" || t.status === "error").map((t) => t.id);

  const alone = [...failing].sort().slice(0, MAX_FAILING_ALONE);
  const spectra: TestSpectrum[] = [];
  // Each lone failing run's counts beyond the loads: that test's own executions.
  const own = new Map<string, LineCounts>();
  for (const id of alone) {
    const { report, counts } = await covered({ kind: "tests", ids: [id] }, "failing alone");
    const result = report.tests.find((t) => t.id === id) ?? report.tests.find((t) => t.status !== "skip");
    if (!result || result.status === "skip") continue;
    const lines = new Map<string, Set<number>>();
    for (const [file, byLine] of counts) {
      const set = new Set<number>();
      for (const [line, count] of byLine) if (count > 0) set.add(line);
      if (set.size > 0) lines.set(file, set);
    }
    spectra.push({ id, failed: result.status === "fail" || result.status === "error", lines });
    const beyond: LineCounts = new Map();
    addBeyond(beyond, counts, loads);
    own.set(id, beyond);
  }
  const failingCounts: LineCounts = new Map();
  if (failedInSuite.every((id) => own.has(id)))
    for (const id of failedInSuite) addBeyond(failingCounts, own.get(id) ?? new Map(), new Map());
  // Some ran only in the suite run (a name shared with a passing test, more failing tests than run alone): one run of them together.
  else
    addBeyond(failingCounts, (await covered({ kind: "tests", ids: failedInSuite }, "failing together")).counts, loads);
  const countOf = (counts: LineCounts, file: string, line: number) => counts.get(file)?.get(line) ?? 0;
  const passed: PassedAggregate = {
    covering(file, line) {
      if (countOf(loads, file, line) > 0) return passingIds.size;
      const beyond = countOf(whole.counts, file, line) - countOf(failingCounts, file, line);
      return Math.max(0, Math.min(passingIds.size, beyond));
    },
  };
  return { spectra, dropped: reader.dropped(), passed, passing: passingIds.size, runs, trace };
}

/** Adds to `into` each line's count in `counts` beyond its count in `loads` (what the tests ran, not the loading). */
function addBeyond(into: LineCounts, counts: LineCounts, loads: LineCounts): void {
  for (const [file, byLine] of counts) {
    const target = into.get(file) ?? new Map<number, number>();
    for (const [line, count] of byLine) {
      const beyond = count - (loads.get(file)?.get(line) ?? 0);
      if (beyond > 0) target.set(line, (target.get(line) ?? 0) + beyond);
    }
    into.set(file, target);
  }
}
