// Reading one coverage run back (CoverageReader): a selection run under NODE_V8_COVERAGE, its
// coverage-*.json files and the coverage preload's script records (the inline source maps of
// code a runner compiled through node:vm) turned into line counts of repository files, within
// a work budget, every path through the safe-path check. js-spectra.ts decides which runs to make.
import { NODE_WATCHDOG } from "../../verify/node-test-watchdog.ts";
import { readdir } from "node:fs/promises";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { RunTimeLimit, Verifier } from "../../verify/local-verifier.ts";
import { RUNNER_CACHE_ENV, type TestSelection } from "../../verify/runners/test-runner.ts";
import type { TestReport } from "../../verify/test-report.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { reportedFileFilter, type ReportedFileFilter } from "./reported-files.ts";
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
export type LineCounts = Map<string, Map<number, number>>;

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
