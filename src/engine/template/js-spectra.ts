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
// loops lower). A test can write its own coverage file there: script URLs go through the
// safe-path check.
import { NODE_WATCHDOG } from "../../verify/node-test-watchdog.ts";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { RunTimeLimit, Verifier } from "../../verify/local-verifier.ts";
import { RUNNER_CACHE_ENV, type TestSelection } from "../../verify/runners/test-runner.ts";
import type { TestReport } from "../../verify/test-report.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import type { PassedAggregate, TestSpectrum } from "./ochiai.ts";
import { reportedFileFilter, type ReportedFileFilter, type Spectra } from "./reported-files.ts";
import { readRunOutput } from "../../verify/read-run-output.ts";
import { setImmediate } from "node:timers/promises";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";
import { COVERAGE_PRELOAD, COVERAGE_SCRIPTS_PREFIX } from "../../verify/coverage-preload.ts";
import {
  decodeSegments,
  mappedLineCounts,
  MAX_RECORD_LINES,
  parseInlineMap,
  scriptRecordSchema,
  sourcePath,
  type DecodedMap,
  type ScriptRecord,
} from "./source-map.ts";
import { CoverageError } from "./python-spectra.ts";
import { innermostRanges, type CoverageRange } from "./innermost-range.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";

/**
 * Lines, mappings and V8 ranges one run's coverage may ask the reader to sweep, in all (each coverage entry
 * costs its file's code lines or its script's mappings, plus its ranges): a minute or two at most. An honest
 * run of 1,000 test processes each loading 100 modules of 500 lines costs ~5e7.
 */
const MAX_READ_WORK = 1_000_000_000;

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

const coverageSchema = z.object({
  result: z.array(
    z.object({
      url: z.string(),
      functions: z.array(
        z.object({ ranges: z.array(z.object({ startOffset: z.int(), endOffset: z.int(), count: z.int() })) }),
      ),
    }),
  ),
});

type Range = CoverageRange;

/** Per repository file, per line: how many times it ran (summed over a run's processes). */
type LineCounts = Map<string, Map<number, number>>;

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

/** One run of a selection under NODE_V8_COVERAGE, read back as line counts of repository files. */
export class CoverageReader {
  private readonly workspace: string;
  private readonly limits: { maxReadWork: number; maxRecordBytes: number };
  private readonly safe: ReportedFileFilter;
  private readonly sources = new Map<string, string>();
  /** Each record's map parsed and its mappings decoded once, however many coverage entries name its script. */
  private readonly decoded = new WeakMap<ScriptRecord, DecodedMap | undefined>();
  private readonly code = new Map<string, CodeLines>();
  /** Lines, mappings and ranges swept for this run's coverage, against MAX_READ_WORK. */
  private work = 0;

  constructor(workspace: string, limits: { maxReadWork?: number; maxRecordBytes?: number } = {}) {
    this.workspace = workspace;
    this.limits = {
      maxReadWork: limits.maxReadWork ?? MAX_READ_WORK,
      maxRecordBytes: limits.maxRecordBytes ?? MAX_RECORD_BYTES,
    };
    this.safe = reportedFileFilter(workspace);
  }

  dropped(): string[] {
    return this.safe.dropped();
  }

  async run(
    verifier: Verifier,
    selection: TestSelection,
    limit: RunTimeLimit | undefined,
    cache: string,
  ): Promise<{ report: TestReport; counts: LineCounts; readSeconds: number }> {
    const dir = await makeTempDir("autogen-v8cov-");
    try {
      const env = { NODE_V8_COVERAGE: dir, [RUNNER_CACHE_ENV]: cache };
      const report = await verifier.run(this.workspace, selection, env, limit);
      return { report, ...(await this.read(dir)) };
    } finally {
      await removeTempDir(dir);
    }
  }

  /** The coverage folder a run wrote (node's coverage-*.json, the preload's records) as line counts of repository files. */
  async read(dir: string): Promise<{ counts: LineCounts; readSeconds: number }> {
    const started = performance.now();
    const counts: LineCounts = new Map();
    const names = await readdir(dir);
    const scripts = await readScriptRecords(dir, names, this.limits.maxRecordBytes);
    this.work = 0;
    for (const name of names) {
      if (!name.endsWith(".json")) continue;
      const raw = await readRunOutput(join(dir, name), 256 * 1024 * 1024);
      if (raw === undefined) continue;
      // A file cut short (a process killed while writing it) is left out.
      const parsed = coverageSchema.safeParse(parseJson(raw));
      if (!parsed.success) continue;
      for (const script of parsed.data.result) {
        await this.add(counts, script, scripts);
        // The run wrote these entries: however many, the bot's other jobs and timers go on between them.
        await setImmediate();
      }
    }
    return { counts, readSeconds: (performance.now() - started) / 1000 };
  }

  private async add(
    counts: LineCounts,
    script: z.infer<typeof coverageSchema>["result"][number],
    scripts: Map<string, ScriptRecord>,
  ): Promise<void> {
    if (!script.url.startsWith("file://")) return;
    let path: string;
    try {
      path = fileURLToPath(script.url);
    } catch {
      return;
    }
    // node_modules, and the bot's own watchdog and coverage preload in each test process: not the repository's code.
    if (path.includes("/node_modules/") || path === NODE_WATCHDOG || path === COVERAGE_PRELOAD) return;
    const relative = this.safe.accept(path, { absolute: true });
    if (relative === undefined) return;
    const ranges = script.functions.flatMap((f) => f.ranges);
    // An entry without ranges counts no line (and costs nothing, however many of them the run wrote).
    if (ranges.length === 0) return;
    // Transformed code (jest, vitest): its offsets are the script's text, mapped back through its source map.
    let length = 0;
    for (const r of ranges) length = Math.max(length, r.endOffset);
    const record = scripts.get(`${path}\0${String(length)}`);
    if (record && (await this.addMapped(counts, path, record, ranges))) return;
    const code = await this.codeLines(relative);
    if (!code) return;
    this.spend(code.offsets.length + ranges.length, relative);
    add(counts, relative, countsAt(code, ranges));
  }

  /** Counts work against the run's budget: a run whose coverage asks for more is not localised (a forged coverage would hold the bot for hours). */
  private spend(units: number, file: string): void {
    this.work += units;
    if (this.work > this.limits.maxReadWork)
      throw new CoverageError(
        `the coverage the test run wrote asks for more than ${this.limits.maxReadWork.toExponential(0)} lines, mappings and ranges to be swept (at ${file}): it was not read, and no line is ranked`,
      );
  }

  /** A file's code lines, read once; undefined for a file the bot does not read (over its size cap, say). */
  private async codeLines(relative: string): Promise<CodeLines | undefined> {
    const known = this.code.get(relative);
    if (known) return known;
    let source: string;
    try {
      source = await this.source(relative);
    } catch (error) {
      if (error instanceof UnsafePathError) return undefined;
      throw error;
    }
    const code = codeLineOffsets(source);
    this.code.set(relative, code);
    return code;
  }

  private async source(relative: string): Promise<string> {
    const source = this.sources.get(relative) ?? (await readWorktreeText(this.workspace, relative));
    this.sources.set(relative, source);
    return source;
  }

  /** False when the map is malformed or does not fit the script (the caller then reads the text on disk). */
  private async addMapped(
    counts: LineCounts,
    path: string,
    record: ScriptRecord,
    ranges: readonly Range[],
  ): Promise<boolean> {
    if (!this.decoded.has(record)) {
      const map = parseInlineMap(record.map);
      const segments = map ? decodeSegments(map.mappings, record) : undefined;
      this.decoded.set(record, map && segments ? { map, segments } : undefined);
    }
    const decoded = this.decoded.get(record);
    if (!decoded) return false;
    const { map, segments } = decoded;
    this.spend(segments.length + ranges.length, path);
    const bySource = mappedLineCounts(segments, ranges);
    for (const [index, byLine] of bySource) {
      const name = map.sources[index];
      const original = name ? sourcePath(path, name, map.sourceRoot) : undefined;
      if (original === undefined || original.includes("/node_modules/")) continue;
      // Only an editable file of the worktree: a map naming ../../etc/passwd or a link is dropped, never read.
      const relative = this.safe.accept(original, { absolute: true });
      if (relative === undefined) continue;
      const code = await this.codeLines(relative);
      if (!code) continue;
      add(counts, relative, new Map([...byLine].filter(([line]) => code.set.has(line))));
    }
    return true;
  }
}

function add(counts: LineCounts, relative: string, lines: Map<number, number>): void {
  const byLine = counts.get(relative) ?? new Map<number, number>();
  for (const [line, count] of lines) byLine.set(line, (byLine.get(line) ?? 0) + count);
  counts.set(relative, byLine);
}

/** All the preload's record files of one run together: beyond this, the rest are left out (their lines come from the text on disk). */
const MAX_RECORD_BYTES = 64 * 1024 * 1024;

/**
 * The coverage preload's records of the scripts compiled through node:vm with a source map, by file and length.
 * The run could write any file there: the files are read up to one budget in all, and a record's `lines` is
 * checked by hand before the schema (a million bad numbers would cost zod a million issue objects).
 */
async function readScriptRecords(
  dir: string,
  names: readonly string[],
  maxBytes: number,
): Promise<Map<string, ScriptRecord>> {
  const records = new Map<string, ScriptRecord>();
  let budget = maxBytes;
  for (const name of [...names].sort()) {
    if (!name.startsWith(COVERAGE_SCRIPTS_PREFIX) || !name.endsWith(".jsonl")) continue;
    const raw = await readRunOutput(join(dir, name), budget);
    if (raw === undefined) continue;
    budget -= Buffer.byteLength(raw);
    for (const line of raw.split("\n")) {
      if (!line) continue;
      const value = parseJson(line);
      if (!plausibleRecord(value)) continue;
      const parsed = scriptRecordSchema.safeParse(value);
      if (parsed.success) records.set(`${parsed.data.filename}\0${String(parsed.data.length)}`, parsed.data);
    }
    await setImmediate();
  }
  return records;
}

function plausibleRecord(value: unknown): boolean {
  if (typeof value !== "object" || value === null) return false;
  const lines = (value as { lines?: unknown }).lines;
  return (
    Array.isArray(lines) &&
    lines.length <= MAX_RECORD_LINES &&
    lines.every((n) => typeof n === "number" && Number.isSafeInteger(n) && n >= 0)
  );
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

const CLOSING_OR_COMMENT = /^\s*(\/\/|\*|\/\*|})/;

/** A line is executed when the innermost V8 range holding its first character ran. */
export function coveredLines(source: string, ranges: readonly Range[]): Set<number> {
  return new Set([...lineCounts(source, ranges)].filter(([, count]) => count > 0).map(([line]) => line));
}

/** Each code line's count: that of the innermost V8 range holding its first character (comment and closing lines left out). */
export function lineCounts(source: string, ranges: readonly Range[]): Map<number, number> {
  return countsAt(codeLineOffsets(source), ranges);
}

/** A file's code lines (ascending), the offsets of their first characters, and the same lines as a set. */
type CodeLines = { lines: number[]; offsets: number[]; set: Set<number> };

function countsAt({ lines, offsets }: CodeLines, ranges: readonly Range[]): Map<number, number> {
  const innermost = innermostRanges(offsets, ranges);
  const counts = new Map<number, number>();
  lines.forEach((line, index) => {
    const range = innermost[index];
    if (range) counts.set(line, range.count);
  });
  return counts;
}

/** The code lines of a text (not blank, not a closing brace or a comment) and the offsets of their first characters. */
function codeLineOffsets(source: string): CodeLines {
  const lines: number[] = [];
  const offsets: number[] = [];
  let offset = 0;
  source.split("\n").forEach((text, index) => {
    const first = text.search(/\S/);
    if (first >= 0 && !CLOSING_OR_COMMENT.test(text)) {
      lines.push(index + 1);
      offsets.push(offset + first);
    }
    offset += text.length + 1;
  });
  return { lines, offsets, set: new Set(lines) };
}
