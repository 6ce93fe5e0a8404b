// A warm runner for one validation slot whose runner has no faithful in-process warm mode
// (node --test: its ESM module cache cannot be invalidated): a zygote
// (resources/node/autogen-warm-zygote.mjs) started ahead of each candidate in the same
// sandbox a cold run gets, which on request runs the cold run's exact argv as its child. It
// removes the sandbox's set-up and a runtime start from the candidate's cost and nothing
// else: it has read nothing from the workspace when the request comes, so a candidate that
// changes tests, package.json or node configuration is seen as a cold run sees it, and the
// results come through the same report and parser as a cold run's. A single-file node --test
// run of our runner's own argv shape runs inside the zygote (node:test run(), isolation
// "none"), which also saves node --test's own child process; see the zygote for why that is
// sound and when it is not taken.
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { markTestTimeout } from "../mark-test-timeout.ts";
import { readJunit } from "../read-junit.ts";
import type { TestRunner, TestSelection } from "../runners/test-runner.ts";
import { runSandboxed } from "../sandbox/run-sandboxed.ts";
import type { RunResult, TestReport } from "../test-report.ts";
import type { RunTimeLimit, Verifier, VerifierRunOptions, WarmSlot, WarmStats } from "../verifier.ts";
import type { WarmChannel } from "./warm-channel.ts";
import { stopWarmProcess } from "./stop-warm-process.ts";
import { coldFallback, openControl } from "./warm-slot-parts.ts";
import { timeLimitMessage } from "./warm-pytest-slot.ts";
import { readWatchdogTimeouts } from "../node-test-watchdog.ts";
import { withPerTestLimit } from "../per-test-limit.ts";

export const WARM_ZYGOTE = fileURLToPath(new URL("../../../resources/node/autogen-warm-zygote.mjs", import.meta.url));
/** How long a zygote may wait for its candidate before it is replaced (the sandbox's wall limit counts from its start). */
const IDLE_MS = 15 * 60_000;
/** The zygote's own grace between SIGTERM and SIGKILL, and how long past it a silent zygote counts as dead. */
const KILL_GRACE_MS = 2000;
const WATCHDOG_MS = 10_000;
/** Past its limit, how long an in-process run's zygote may take to say it timed out before we end it. */
const IN_PROCESS_GRACE_MS = 1000;
/** Zygotes in a row that fail to start before the slot stays cold. */
const MAX_FAILED_STARTS = 3;

type Zygote = {
  channel: WarmChannel;
  done: Promise<RunResult>;
  exited: boolean;
  abort: AbortController;
  ctl: string;
  report: string;
  startedAt: number;
};

export function openWarmZygote(
  workspace: string,
  runner: TestRunner,
  options: VerifierRunOptions,
  cold: Verifier,
): WarmSlot {
  const stats: WarmStats = { warm: 0, cold: 0, starts: 0, coldReasons: [], inProcess: 0 };
  let pending: Promise<Zygote | undefined> | undefined;
  let failedStarts = 0;
  let closed = false;

  const runCold = coldFallback(stats, cold, workspace);

  const start = async (): Promise<Zygote | undefined> => {
    const { ctl, socket, channel, abort } = await openControl(stats);
    const env = {
      ...(runner.prepareEnv ? runner.prepareEnv(options.env) : (options.env ?? {})),
      AUTOGEN_WARM_SOCKET: socket,
    };
    const done = runSandboxed(["node", WARM_ZYGOTE], {
      ...options,
      // The run's own limit is the zygote's, from the request; the sandbox's covers the wait too.
      timeoutMs: IDLE_MS + options.timeoutMs + WATCHDOG_MS,
      // CPU seconds as a cold run's (the default follows the wall limit).
      limits: { ...options.limits, cpuSeconds: options.limits?.cpuSeconds ?? Math.ceil(options.timeoutMs / 1000) + 60 },
      cwd: workspace,
      env,
      pathPrefix: [...runner.pathPrefix, ...(options.pathPrefix ?? [])],
      readOnlyPaths: [join(workspace, ".git"), ...(options.protect ?? [])],
      writablePaths: [ctl],
      signal: options.signal ? AbortSignal.any([abort.signal, options.signal]) : abort.signal,
    });
    const zygote: Zygote = {
      channel,
      done,
      exited: false,
      abort,
      ctl,
      report: join(ctl, "report.xml"),
      startedAt: performance.now(),
    };
    void done.then(() => {
      zygote.exited = true;
      channel.close();
    });
    const hello = await channel.next(options.timeoutMs);
    if (hello.kind === "message" && "ready" in hello.message && hello.message.ready) {
      failedStarts = 0;
      return zygote;
    }
    failedStarts += 1;
    await stop(zygote);
    return undefined;
  };

  const stop = (z: Zygote) => stopWarmProcess(z);

  /** The next candidate's zygote, started now while the candidate is being written. */
  const prespawn = () => {
    if (!closed && failedStarts < MAX_FAILED_STARTS) pending = start();
  };

  const take = async (): Promise<Zygote | undefined> => {
    if (!pending) prespawn();
    const zygote = await pending;
    pending = undefined;
    if (zygote && (zygote.exited || performance.now() - zygote.startedAt > IDLE_MS)) {
      // Died or waited too long while idle: replaced, and this candidate waits for the new one.
      await stop(zygote);
      if (closed || failedStarts >= MAX_FAILED_STARTS) return undefined;
      return start();
    }
    return zygote;
  };

  const runWarm = async (
    zygote: Zygote,
    selection: TestSelection,
    limit: RunTimeLimit | undefined,
  ): Promise<TestReport> => {
    const timeoutMs = Math.min(limit?.timeoutMs ?? options.timeoutMs, options.timeoutMs);
    const runnerOptions = { perTestMs: limit?.perTestMs, perTestWallMs: limit?.perTestWallMs };
    const argv = runner.command(selection, zygote.report, runnerOptions);
    const started = performance.now();
    // The per-test limits a cold run has in its environment (our node watchdog's), for this run alone.
    const env = runner.prepareEnv ? runner.prepareEnv({}, runnerOptions) : {};
    zygote.channel.send({ argv, timeoutMs, env });
    // The zygote answers as its command ends; silence past its own limit and grace means it is stuck.
    let answer = await zygote.channel.next(timeoutMs + KILL_GRACE_MS + WATCHDOG_MS);
    // Running the tests in its own process, a synchronous loop also blocks the zygote's own
    // limit: the limit is ours then, and silence past it is the tests' time running out.
    let inProcessOverdue = false;
    const inProcess = answer.kind === "message" && "status" in answer.message && answer.message.status === "running";
    if (inProcess) {
      answer = await zygote.channel.next(Math.max(0, timeoutMs - (performance.now() - started)) + IN_PROCESS_GRACE_MS);
      inProcessOverdue = answer.kind === "timeout";
    }
    if (answer.kind === "timeout") zygote.abort.abort();
    const result = await zygote.done;
    const durationMs = Math.round(performance.now() - started);
    const message = inProcessOverdue
      ? ({ status: "timeout", ms: durationMs } as const)
      : answer.kind === "message" && "status" in answer.message && answer.message.status !== "running"
        ? answer.message
        : undefined;
    // A limit of the sandbox's (disk, processes) stopped it as it would have stopped a cold run.
    const sandboxLimit = result.limit && result.limit.name !== "cancelled" && result.limit.name !== "wall-time";
    if (!message && !sandboxLimit) return runCold(selection, limit, "the warm runner ended");
    if (message?.status === "cold") return runCold(selection, limit, message.reason);
    stats.warm += 1;
    if (inProcess) stats.inProcess = (stats.inProcess ?? 0) + 1;
    const timedOut = message?.status === "timeout";
    const run: RunResult = {
      ...result,
      argv,
      durationMs,
      timedOut,
      ...(timedOut
        ? { limit: { name: "wall-time" as const, message: timeLimitMessage(timeoutMs, limit, options.timeoutMs) } }
        : {}),
    };
    const fromReport = runner.reportFormat === "junit" ? await readJunit(zygote.report, workspace) : undefined;
    let report: TestReport;
    if (fromReport) report = { run, tests: fromReport, source: "junit" };
    else {
      const fromConsole = runner.parseConsole?.(run.output) ?? [];
      report = { run, tests: fromConsole, source: fromConsole.length > 0 ? "console" : "none" };
    }
    if (runner.name === "node-test") readWatchdogTimeouts(report, workspace);
    if (limit?.perTestMs !== undefined && !run.limit) markTestTimeout(report, limit);
    return report;
  };

  return {
    stats,
    async prepare() {
      if (!pending && !closed) {
        prespawn();
        await pending;
      }
    },
    async run(selection, given) {
      // The same per-test limit a cold run gets (local-verifier.ts), so warm and cold agree.
      const limit = withPerTestLimit(given, options.timeoutMs);
      const zygote = closed ? undefined : await take();
      if (!zygote)
        return runCold(selection, limit, closed ? "the warm runner is closed" : "the warm runner could not start");
      try {
        return await runWarm(zygote, selection, limit);
      } finally {
        await stop(zygote);
        prespawn();
      }
    },
    async close() {
      closed = true;
      const zygote = await pending;
      pending = undefined;
      if (zygote) await stop(zygote);
    },
  };
}
