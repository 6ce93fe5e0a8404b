// Per-test line coverage for Python: runs the visible tests under pytest with our
// tracing plugin (inside the sandbox) and reads back which lines each test executed.
// With the failing tests named, two runs: the failing tests traced line by line, then the
// others traced only inside the functions the failing ones ran (the only lines Ochiai can
// rank), so a large passing suite costs close to its own time instead of many times it.
// With the unchanged code's timings, the heaviest passing tests are left out of the second
// run when they hold most of the suite's time (trace-selection.ts); they are named in `untraced`.
// The trace is written where the tests run, so a test can forge it: every file it names
// must be an editable file of the worktree, or the entry is dropped (and counted).
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { z } from "zod";
import { PYTEST_PLUGIN, withPytestPlugin } from "../../verify/runners/pytest-plugin.ts";
import { pythonExecutable } from "../../verify/runners/python-executable.ts";
import { safeIds } from "../../verify/runners/test-runner.ts";
import { pytestOwnArgs } from "../../verify/runners/detect-runner.ts";
import { runSandboxed, type SandboxOptions } from "../../verify/sandbox/run-sandboxed.ts";
import { reportedFileFilter, type ReportedFileFilter, type Spectra } from "./reported-files.ts";
import type { TestSpectrum } from "./ochiai.ts";
import { heavyTestsToLeaveOut } from "./trace-selection.ts";
import { readRunOutput } from "../../verify/read-run-output.ts";
import { FIRST_TRACE_FACTOR, firstRunCpuMs, perTestWallMs, pythonPerTestEnv } from "../../verify/per-test-limit.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

const traceSchema = z.record(
  z.string(),
  z.object({ outcome: z.string().optional(), lines: z.record(z.string(), z.array(z.int())).optional() }),
);
type Trace = z.infer<typeof traceSchema>;

export class CoverageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CoverageError";
  }
}

export type PythonSpectraOptions = Omit<SandboxOptions, "cwd"> & {
  /** The command's own pytest arguments (`-o addopts=`, `--ignore benchmark`, `tests`): every trace run keeps its options, a run of the whole suite its paths too. */
  commandArgs?: readonly string[] | undefined;
  /** One test's limit (from the unchanged code's timings); the default per-test limit when absent. */
  perTestMs?: number | undefined;
  /** One test's limit in the failing tests' run (shorter when they all looped in the unchanged code); `perTestMs` when absent. */
  failingPerTestMs?: number | undefined;
  /** The failing tests: traced first and in full, the others then only where these ran. */
  failing?: string[] | undefined;
  /** Each test's time (ms) in the unchanged code's run: the heaviest passing tests may be left out of the focus run. */
  durations?: ReadonlyMap<string, number | undefined> | undefined;
};

/** `testIds`: the tests to trace, all of them when empty. */
export async function pythonSpectra(
  workspace: string,
  testIds: string[],
  given: PythonSpectraOptions,
): Promise<Spectra & { untraced: string[] }> {
  const { perTestMs, failingPerTestMs = perTestMs, failing = [], durations, commandArgs = [], ...options } = given;
  const dir = await makeTempDir("autogen-trace-");
  try {
    const safe = reportedFileFilter(workspace);
    const run = (ids: string[], extra: string[], focus?: string, limitMs = perTestMs) =>
      traceRun(workspace, dir, [...pytestOwnArgs(commandArgs, ids.length > 0), ...extra, ...safeIds(ids)], {
        ...options,
        perTestMs: limitMs,
        focus,
      });
    if (failing.length === 0)
      return { spectra: spectraOf(await run(testIds, [], undefined), safe), dropped: safe.dropped(), untraced: [] };
    const failed = spectraOf(await run(failing, [], undefined, failingPerTestMs), safe);
    const focus = new Map<string, Set<number>>();
    for (const test of failed.filter((t) => t.failed))
      for (const [file, lines] of test.lines) focus.set(file, new Set([...(focus.get(file) ?? []), ...lines]));
    // No line of the repository ran in a failing test: the passing tests cannot tell any apart.
    if (focus.size === 0) return { spectra: failed, dropped: safe.dropped(), untraced: [] };
    const focusPath = join(dir, "focus.json");
    await writeFile(
      focusPath,
      JSON.stringify(Object.fromEntries([...focus].map(([file, lines]) => [file, [...lines]]))),
    );
    const failingSet = new Set(failing);
    const passing = (testIds.length > 0 ? testIds : [...(durations?.keys() ?? [])]).filter((id) => !failingSet.has(id));
    const untraced = durations
      ? heavyTestsToLeaveOut(
          passing.map((id) => ({ id, ms: durations.get(id) })),
          failing.reduce((sum, id) => sum + (durations.get(id) ?? 0), 0),
        )
      : [];
    const untracedSet = new Set(untraced);
    const others = testIds.filter((id) => !failingSet.has(id) && !untracedSet.has(id));
    if (testIds.length > 0 && others.length === 0) return { spectra: failed, dropped: safe.dropped(), untraced };
    // The whole suite: the failing and untraced tests are left out by --deselect (their ids are checked like any selected id).
    const deselect = testIds.length === 0 ? safeIds([...failing, ...untraced]).map((id) => `--deselect=${id}`) : [];
    const rest = spectraOf(await run(others, deselect, focusPath), safe).filter(
      (t) => !failingSet.has(t.id) && !untracedSet.has(t.id),
    );
    return { spectra: [...failed, ...rest], dropped: safe.dropped(), untraced };
  } finally {
    await removeTempDir(dir);
  }
}

type TraceRunOptions = Omit<SandboxOptions, "cwd"> & { perTestMs: number | undefined; focus: string | undefined };

async function traceRun(workspace: string, dir: string, args: string[], options: TraceRunOptions): Promise<Trace> {
  const { perTestMs, focus, ...sandbox } = options;
  const out = join(dir, focus ? "trace-focus.json" : "trace.json");
  // A test that loops stops at the per-test limit here too (a tighter one already in the environment is kept); it fails, the trace is still written.
  // CPU time (the tracer's included); before any timing, a multiple of the first run's, for the tracer's slowdown.
  const cpuMs = perTestMs ?? FIRST_TRACE_FACTOR * firstRunCpuMs(sandbox.timeoutMs);
  const env = withPytestPlugin(sandbox.env, {
    AUTOGEN_TRACE_OUT: out,
    ...pythonPerTestEnv(sandbox.env, { perTestMs: cpuMs, perTestWallMs: perTestWallMs(cpuMs, sandbox.timeoutMs) }),
    ...(focus ? { AUTOGEN_TRACE_FOCUS: focus } : {}),
  });
  const run = await runSandboxed(
    [pythonExecutable(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PYTEST_PLUGIN, ...args],
    { ...sandbox, cwd: workspace, env, writablePaths: [dir] },
  );
  // The trace is written by the run: read only as a regular file, never through a link or a FIFO.
  const text = await readRunOutput(out, 256 * 1024 * 1024);
  if (text === undefined) {
    throw new CoverageError(
      `the coverage run wrote no trace (exit ${String(run.exitCode)}${run.timedOut ? ", timed out" : ""}): ${run.spawnError ?? run.output.slice(-500)}`,
    );
  }
  return traceSchema.parse(JSON.parse(text));
}

function spectraOf(trace: Trace, safe: ReportedFileFilter): TestSpectrum[] {
  // A skipped test neither passed nor failed: it tells the lines nothing.
  return Object.entries(trace)
    .filter(([, entry]) => entry.outcome !== "skipped")
    .map(([id, entry]) => ({
      id,
      failed: entry.outcome !== "passed",
      lines: new Map(
        Object.entries(entry.lines ?? {}).flatMap(([file, lines]) =>
          safe.accept(file) ? [[file, new Set(lines)] as const] : [],
        ),
      ),
    }));
}
