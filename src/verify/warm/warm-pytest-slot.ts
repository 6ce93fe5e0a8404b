// A warm pytest runner for one validation slot: a pytest session started once in the
// sandbox (same isolation, limits and environment as a cold run) that has collected the
// targeted test files and, for each candidate, forks and runs the requested tests on the
// changed source (resources/python/autogen_warm.py). The report it returns has the shape
// of a cold run's; anything the warm runner cannot reproduce faithfully runs cold.
import { rm } from "node:fs/promises";
import { join } from "node:path";
import { markTestTimeout } from "../mark-test-timeout.ts";
import { pythonPerTestEnv, withPerTestLimit } from "../per-test-limit.ts";
import { readJunit } from "../read-junit.ts";
import { readRunOutput } from "../read-run-output.ts";
import type { TestRunner } from "../runners/test-runner.ts";
import { detectIsolation } from "../sandbox/detect-isolation.ts";
import { runSandboxed } from "../sandbox/run-sandboxed.ts";
import type { Isolation, RunResult, TestReport } from "../test-report.ts";
import type { RunTimeLimit, Verifier, VerifierRunOptions, WarmSlot, WarmStats } from "../verifier.ts";
import type { WarmChannel } from "./warm-channel.ts";
import { stopWarmProcess } from "./stop-warm-process.ts";
import { coldFallback, openControl } from "./warm-slot-parts.ts";

export type { WarmSlot, WarmStats } from "../verifier.ts";

export const WARM_PLUGIN = "autogen_warm";
/** Output of one warm request kept, as a cold run keeps its own. */
const OUTPUT_CAP = 2 * 1024 * 1024;
/** How long past a request's own limit the server may take to answer before it counts as dead. */
const WATCHDOG_MS = 10_000;
/** Server starts per slot (the first and restarts after a death) before the slot stays cold. */
const MAX_STARTS = 3;

type Server = {
  channel: WarmChannel;
  done: Promise<RunResult>;
  abort: AbortController;
  files: Set<string>;
  ctl: string;
  isolation: Isolation;
};

export function openWarmPytest(
  workspace: string,
  runner: TestRunner,
  options: VerifierRunOptions,
  cold: Verifier,
): WarmSlot {
  const stats: WarmStats = { warm: 0, cold: 0, starts: 0, coldReasons: [] };
  let server: Server | undefined;
  let disabled = false;
  let request = 0;

  const runCold = coldFallback(stats, cold, workspace);

  const start = async (files: string[]): Promise<Server | undefined> => {
    const { ctl, socket, channel, abort } = await openControl(stats);
    const choice = await detectIsolation();
    const isolation: Isolation = "isolation" in choice ? choice.isolation : "none";
    const argv = runner.command({ kind: "tests", ids: files }, join(ctl, "server.xml"));
    // Our plugin goes right after `python -m pytest`, before the repository's own arguments.
    const withPlugin = [...argv.slice(0, 3), "-p", WARM_PLUGIN, ...argv.slice(3)];
    const env = {
      ...(runner.prepareEnv ? runner.prepareEnv(options.env) : (options.env ?? {})),
      AUTOGEN_WARM_SOCKET: socket,
      AUTOGEN_WARM_REAP: isolation === "none" ? "0" : "1",
    };
    const done = runSandboxed(withPlugin, {
      ...options,
      cwd: workspace,
      env,
      pathPrefix: [...runner.pathPrefix, ...(options.pathPrefix ?? [])],
      readOnlyPaths: [join(workspace, ".git"), ...(options.protect ?? [])],
      writablePaths: [ctl],
      signal: options.signal ? AbortSignal.any([abort.signal, options.signal]) : abort.signal,
    });
    void done.then(() => channel.close());
    const hello = await channel.next(options.timeoutMs);
    const started: Server = { channel, done, abort, files: new Set(files), ctl, isolation };
    if (hello.kind === "message" && "ready" in hello.message && hello.message.ready) return started;
    // Collection errors (a candidate that breaks an import, if started on one): tried again on the next request, at most MAX_STARTS times.
    await stop(started);
    return undefined;
  };

  const stop = (s: Server) => stopWarmProcess(s);

  const filesOf = (ids: string[]) => [...new Set(ids.map((id) => id.split("::")[0] ?? id))];

  return {
    stats,
    async prepare(selection) {
      if (selection.kind === "tests" && selection.ids.length > 0 && !server && !disabled && stats.starts < MAX_STARTS)
        server = await start(filesOf(selection.ids));
    },
    async run(selection, limit) {
      if (selection.kind !== "tests" || selection.ids.length === 0)
        return runCold(selection, limit, "not a selection of tests");
      const files = filesOf(selection.ids);
      if (server && !files.every((f) => server?.files.has(f)))
        return runCold(selection, limit, "tests outside the files the warm runner collected");
      if (!server && !disabled && stats.starts < MAX_STARTS) server = await start(files);
      if (!server)
        return runCold(selection, limit, disabled ? "the warm runner is closed" : "the warm runner could not start");
      const current = server;
      const timeoutMs = Math.min(limit?.timeoutMs ?? options.timeoutMs, options.timeoutMs);
      request += 1;
      const reportPath = join(current.ctl, `r${String(request)}.xml`);
      const outputPath = join(current.ctl, `r${String(request)}.out`);
      const started = performance.now();
      // The same per-test limit a cold run gets (local-verifier.ts): CPU time, and wall-clock time for a test that blocks.
      const perTest = withPerTestLimit(limit, options.timeoutMs);
      const perTestEnv = pythonPerTestEnv(options.env, perTest);
      current.channel.send({
        ids: selection.ids,
        report: reportPath,
        output: outputPath,
        timeout: timeoutMs / 1000,
        testTimeout: Number(perTestEnv.AUTOGEN_TEST_TIMEOUT),
        testWallTimeout: Number(perTestEnv.AUTOGEN_TEST_WALL_TIMEOUT),
      });
      const answer = await current.channel.next(timeoutMs + WATCHDOG_MS);
      const durationMs = Math.round(performance.now() - started);
      try {
        if (answer.kind !== "message" || !("status" in answer.message) || answer.message.status === "running") {
          // Dead, silent or speaking out of turn: it is replaced on the next request.
          server = undefined;
          await stop(current);
          return await runCold(
            selection,
            limit,
            answer.kind === "timeout" ? "the warm runner did not answer" : "the warm runner ended",
          );
        }
        const message = answer.message;
        if (message.status === "cold") return await runCold(selection, limit, message.reason);
        stats.warm += 1;
        const timedOut = message.status === "timeout";
        const argv = runner.command(selection, reportPath);
        const output = (await readRunOutput(outputPath, 64 * 1024 * 1024)) ?? "";
        const run: RunResult = {
          argv,
          exitCode: message.status === "ran" ? message.exit : null,
          signal:
            message.status === "ran" && message.signal !== null
              ? `signal ${String(message.signal)}`
              : timedOut
                ? "SIGKILL"
                : null,
          timedOut,
          durationMs,
          output: output.slice(0, OUTPUT_CAP),
          outputBytes: Buffer.byteLength(output),
          outputTruncated: output.length > OUTPUT_CAP,
          isolation: current.isolation,
          ...(timedOut
            ? { limit: { name: "wall-time" as const, message: timeLimitMessage(timeoutMs, limit, options.timeoutMs) } }
            : {}),
        };
        const fromReport = runner.reportFormat === "junit" ? await readJunit(reportPath, workspace) : undefined;
        const fromConsole = fromReport ? [] : (runner.parseConsole?.(run.output) ?? []);
        const report: TestReport = fromReport
          ? { run, tests: fromReport, source: "junit" }
          : { run, tests: fromConsole, source: fromConsole.length > 0 ? "console" : "none" };
        if (!run.limit) markTestTimeout(report, perTest);
        return report;
      } finally {
        await rm(reportPath, { force: true });
        await rm(outputPath, { force: true });
      }
    },
    async close() {
      disabled = true;
      if (server) await stop(server);
      server = undefined;
    },
  };
}

/** The words a cold run uses for the same limit. */
export function timeLimitMessage(timeoutMs: number, limit: RunTimeLimit | undefined, runLimitMs: number): string {
  const seconds = String(Math.round(timeoutMs / 100) / 10);
  if (limit && limit.timeoutMs < runLimitMs) return `timed out after ${seconds} s (${limit.reason})`;
  return `timed out after ${seconds} s (the test run's time limit, test.timeoutMinutes)`;
}
