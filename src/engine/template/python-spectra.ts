// Per-test line coverage for Python: runs the visible tests under pytest with our
// tracing plugin (inside the sandbox) and reads back which lines each test executed.
// The trace is written where the tests run, so a test can forge it: every file it names
// must be an editable file of the worktree, or the entry is dropped (and counted).
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { z } from "zod";
import { PYTEST_PLUGIN, withPytestPlugin } from "../../verify/runners/pytest-plugin.ts";
import { pythonExecutable } from "../../verify/runners/python-executable.ts";
import { safeIds } from "../../verify/runners/test-runner.ts";
import { runSandboxed, type SandboxOptions } from "../../verify/sandbox/run-sandboxed.ts";
import { reportedFileFilter, type Spectra } from "./reported-files.ts";
import { readRunOutput } from "../../verify/read-run-output.ts";
import { defaultPerTestMs } from "../../verify/per-test-limit.ts";

const traceSchema = z.record(z.string(), z.object({ outcome: z.string().optional(), lines: z.record(z.string(), z.array(z.int())).optional() }));

export class CoverageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CoverageError";
  }
}

/** `perTestMs`: one test's limit (from the unchanged code's timings); the default per-test limit when absent. */
export async function pythonSpectra(workspace: string, testIds: string[], given: Omit<SandboxOptions, "cwd"> & { perTestMs?: number | undefined }): Promise<Spectra> {
  const { perTestMs, ...options } = given;
  const dir = await mkdtemp(join(tmpdir(), "autogen-trace-"));
  try {
    const out = join(dir, "trace.json");
    // A test that loops stops at the per-test limit here too (a tighter one already in the environment is kept); it fails, the trace is still written.
    const fromEnv = Number(options.env?.AUTOGEN_TEST_TIMEOUT ?? 0);
    const ours = (perTestMs ?? defaultPerTestMs(options.timeoutMs)) / 1000;
    const env = withPytestPlugin(options.env, { AUTOGEN_TRACE_OUT: out, AUTOGEN_TEST_TIMEOUT: String(fromEnv > 0 && fromEnv < ours ? fromEnv : ours) });
    const run = await runSandboxed([pythonExecutable(), "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", PYTEST_PLUGIN, ...safeIds(testIds)], { ...options, cwd: workspace, env, writablePaths: [dir] });
    // The trace is written by the run: read only as a regular file, never through a link or a FIFO.
    const text = await readRunOutput(out, 256 * 1024 * 1024);
    if (text === undefined) {
      throw new CoverageError(`the coverage run wrote no trace (exit ${String(run.exitCode)}${run.timedOut ? ", timed out" : ""}): ${run.spawnError ?? run.output.slice(-500)}`);
    }
    const trace = traceSchema.parse(JSON.parse(text));
    const safe = reportedFileFilter(workspace);
    // A skipped test neither passed nor failed: it tells the lines nothing.
    const spectra = Object.entries(trace).filter(([, entry]) => entry.outcome !== "skipped").map(([id, entry]) => ({
      id,
      failed: entry.outcome !== "passed",
      lines: new Map(Object.entries(entry.lines ?? {}).flatMap(([file, lines]) => (safe.accept(file) ? [[file, new Set(lines)] as const] : []))),
    }));
    return { spectra, dropped: safe.dropped() };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
