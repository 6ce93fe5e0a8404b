// A warm zygote for one validation slot (src/verify/warm/warm-zygote-slot.ts): a node process
// started in the sandbox ahead of the candidate, which has paid for the sandbox's set-up and
// its own start and reads nothing from the workspace. It says it is ready on the bot's unix
// socket ($AUTOGEN_WARM_SOCKET), waits for one request (the cold run's exact argv, a time
// limit), runs that command as its child with its own stdio and environment, reports how it
// ended, and exits as the child did. One request per zygote: nothing outlives a candidate.
// A single-file node --test run of exactly the shape our runner builds runs in this process
// instead (node:test's run() with isolation "none"): sound because this process has loaded
// nothing from the workspace and ends after the one run, and only one file is loaded, so no
// other test file can share its globals or module cache (what a cold run's per-file process
// would have kept apart). Anything it cannot judge as a cold run would (the test ends the
// process or sets its exit code) is reported "cold" and run again cold by the bot.
import { spawn } from "node:child_process";
import { createWriteStream, statSync } from "node:fs";
import { connect } from "node:net";
import { constants } from "node:os";
import { resolve } from "node:path";
import { performance } from "node:perf_hooks";
import { PassThrough } from "node:stream";
import { pipeline } from "node:stream/promises";
import { Worker } from "node:worker_threads";
// Loaded before the candidate arrives, so the in-process run pays for neither.
import { run as runTests } from "node:test";
import { junit, tap } from "node:test/reporters";

const MAX_LINE = 256 * 1024;

/**
 * In process, a test's synchronous loop blocks the zygote's own timer, and a cold run's
 * watchdog (loaded into each test file's process) is not here: this one watches the same
 * limits (the running test's CPU time; wall-clock time for one that blocks) from a worker
 * thread, the running test known from node:test's own events, emitted as each test starts
 * and ends. Past a limit it ends the zygote without a verdict, and the bot runs the
 * candidate cold, where the watchdog names the test as it always does. The worker starts with
 * the zygote (a worker cannot boot while the main thread loops) and waits for a run's limits.
 */
// [test's start: wall-clock ms (0: none running), the process's CPU µs; the CPU limit ms, the wall-clock limit ms]
const watched = new Float64Array(new SharedArrayBuffer(32));
const watchdog = new Worker(
  `
    const { workerData } = require("node:worker_threads");
    const watched = new Float64Array(workerData);
    setInterval(() => {
      if (!watched[0] || !(watched[2] > 0)) return;
      const { user, system } = process.cpuUsage();
      const cpuMs = (user + system - watched[1]) / 1000;
      if (cpuMs > watched[2] || Date.now() - watched[0] > 1.2 * watched[3] + 1000) process.kill(process.pid, "SIGKILL");
    }, 50);
  `,
  { eval: true, workerData: watched.buffer },
);
await new Promise((resolveOnline) => {
  watchdog.once("online", resolveOnline);
  watchdog.once("error", resolveOnline);
});
watchdog.unref();

const path = process.env.AUTOGEN_WARM_SOCKET;
// The command runs with the environment a cold run has: without our socket.
delete process.env.AUTOGEN_WARM_SOCKET;
if (!path) process.exit(2);

const socket = connect(path);
socket.setEncoding("utf8");
let buffer = "";
let started = false;

const send = (message) => socket.write(`${JSON.stringify(message)}\n`);

socket.on("connect", () => send({ ready: true, items: 0 }));
socket.on("data", (chunk) => {
  if (started) return;
  buffer += chunk;
  if (buffer.length > MAX_LINE) process.exit(2);
  const newline = buffer.indexOf("\n");
  if (newline < 0) return;
  let request;
  try {
    request = JSON.parse(buffer.slice(0, newline));
  } catch {
    process.exit(2);
  }
  started = true;
  run(request);
});
// The bot went away before asking: nothing to do.
socket.on("close", () => {
  if (!started) process.exit(0);
});
socket.on("error", () => {
  if (!started) process.exit(0);
});

/**
 * The run's per-test limits, as a cold run's environment carries them (our node watchdog's
 * AUTOGEN_TEST_TIMEOUT_MS and AUTOGEN_TEST_WALL_TIMEOUT_MS): only those names, only whole
 * numbers; anything else in the request is ignored.
 */
function perTestEnv(request) {
  const env = {};
  for (const name of ["AUTOGEN_TEST_TIMEOUT_MS", "AUTOGEN_TEST_WALL_TIMEOUT_MS"]) {
    const value = request?.env?.[name];
    if (typeof value === "string" && /^\d{1,9}$/.test(value)) env[name] = value;
  }
  return env;
}

function run(request) {
  const argv = Array.isArray(request?.argv) ? request.argv.filter((a) => typeof a === "string") : [];
  const timeoutMs = typeof request?.timeoutMs === "number" && request.timeoutMs > 0 ? request.timeoutMs : 0;
  if (argv.length === 0 || timeoutMs === 0) process.exit(2);
  // The command's environment is a cold run's: with this run's per-test limits.
  Object.assign(process.env, perTestEnv(request));
  const begun = performance.now();
  const inProcess = inProcessPlan(argv);
  if (inProcess) return runInProcess(inProcess, timeoutMs, begun);
  let timedOut = false;
  let child;
  try {
    child = spawn(argv[0], argv.slice(1), { stdio: ["ignore", "inherit", "inherit"], env: process.env });
  } catch (error) {
    return finish({ status: "cold", reason: `the warm runner could not start the command: ${String(error?.message ?? error).slice(0, 500)}` }, 2, null);
  }
  child.on("error", (error) => finish({ status: "cold", reason: `the warm runner could not start the command: ${String(error?.message ?? error).slice(0, 500)}` }, 2, null));
  // As a cold run's limit ends a sandbox: everything in it at once (the whole process group,
  // this zygote last, once the bot knows why), so the command gets no more time to report.
  const timer = setTimeout(() => {
    timedOut = true;
    finished = true;
    socket.end(`${JSON.stringify({ status: "timeout", ms: performance.now() - begun })}\n`, () => {
      try {
        process.kill(0, "SIGKILL");
      } catch {
        child.kill("SIGKILL");
        process.exit(1);
      }
    });
  }, timeoutMs);
  child.on("exit", (code, signal) => {
    clearTimeout(timer);
    const ms = performance.now() - begun;
    const signalNumber = signal ? (constants.signals[signal] ?? null) : null;
    finish(timedOut ? { status: "timeout", ms } : { status: "ran", exit: code, signal: signalNumber, ms }, code, signal);
  });
}

/**
 * The run() options for argv when it is exactly what src/verify/runners/detect-runner.ts builds
 * for node --test (reporters, optional per-test timeout and name pattern, --test) and one
 * existing .js/.mjs/.cjs file with no glob characters; undefined for anything else.
 */
function inProcessPlan(argv) {
  // Our synchronous-loop watchdog acts in node --test's file processes only; in process, inProcessWatchdog stands in for it.
  const given = /^--require=\/.*\/autogen-test-watchdog\.cjs$/.test(argv[1] ?? "") ? [argv[0], ...argv.slice(2)] : argv;
  const [node, tapFlag, tapDest, junitFlag, junitDest, ...rest] = given;
  if (node !== "node" || tapFlag !== "--test-reporter=tap" || tapDest !== "--test-reporter-destination=stdout" || junitFlag !== "--test-reporter=junit") return undefined;
  if (!junitDest?.startsWith("--test-reporter-destination=/")) return undefined;
  let timeout;
  let pattern;
  if (/^--test-timeout=\d{1,9}$/.test(rest[0] ?? "")) timeout = Number(rest.shift().slice("--test-timeout=".length));
  if (rest[0]?.startsWith("--test-name-pattern=")) pattern = rest.shift().slice("--test-name-pattern=".length);
  if (rest.length !== 2 || rest[0] !== "--test") return undefined;
  const file = rest[1];
  if (file.startsWith("-") || /[*?[\]{}!\\]/.test(file) || !/\.(?:js|mjs|cjs)$/.test(file)) return undefined;
  try {
    if (!statSync(resolve(file)).isFile()) return undefined;
  } catch {
    return undefined;
  }
  return { file, timeout, pattern, report: junitDest.slice("--test-reporter-destination=".length) };
}

async function runInProcess(plan, timeoutMs, begun) {
  // node:test ends an in-process run when the event loop empties, as a cold run's test
  // process ends: our socket and limit must not keep it alive (the limit still fires if the
  // tests keep the loop busy).
  socket.unref();
  // The bot keeps the limit too: a synchronous loop in a test blocks this process's timer.
  send({ status: "running", inProcess: true });
  const timer = setTimeout(() => {
    // As the child path's limit: the whole sandboxed group at once, once the bot knows why.
    finished = true;
    socket.end(`${JSON.stringify({ status: "timeout", ms: performance.now() - begun })}\n`, () => {
      try {
        process.kill(0, "SIGKILL");
      } catch {
        process.exit(1);
      }
    });
  }, timeoutMs);
  timer.unref();
  const watch = inProcessWatchdog();
  // The run's own verdict, as node --test's exit code (a failing todo test does not fail it).
  let success = false;
  let exitCode;
  try {
    const stream = runTests({
      files: [plan.file],
      isolation: "none",
      ...(watch ? { setup: watch } : {}),
      ...(plan.timeout !== undefined ? { timeout: plan.timeout } : {}),
      ...(plan.pattern !== undefined ? { testNamePatterns: [plan.pattern] } : {}),
    });
    stream.on("test:summary", (summary) => {
      if (summary.file === undefined) success = summary.success;
    });
    // One event stream to both reporters, as node --test's own two reporter flags.
    const toTap = new PassThrough({ objectMode: true });
    const toJunit = new PassThrough({ objectMode: true });
    stream.pipe(toTap);
    stream.pipe(toJunit);
    await Promise.all([pipeline(toTap, tap, process.stdout, { end: false }), pipeline(toJunit, junit, createWriteStream(plan.report))]);
    exitCode = success ? 0 : 1;
  } catch (error) {
    clearTimeout(timer);
    socket.ref();
    return finish({ status: "cold", reason: `the in-process node --test run failed: ${String(error?.message ?? error).slice(0, 500)}` }, 2, null);
  }
  clearTimeout(timer);
  socket.ref();
  // A test that set the process's exit code would have changed a cold run's verdict on its file.
  if (process.exitCode !== undefined && process.exitCode !== 0) return finish({ status: "cold", reason: "a test set the process exit code" }, 2, null);
  finish({ status: "ran", exit: exitCode, signal: null, ms: performance.now() - begun }, exitCode, null);
}

/** node:test's setup hook that keeps `watched` on the running test; undefined without a per-test limit. */
function inProcessWatchdog() {
  const limit = Number(process.env.AUTOGEN_TEST_TIMEOUT_MS || 0);
  if (!(limit > 0)) return undefined;
  watched[3] = Number(process.env.AUTOGEN_TEST_WALL_TIMEOUT_MS || 0) || 10 * limit;
  watched[2] = limit;
  return (stream) => {
    stream.on("test:dequeue", (event) => {
      if (event?.type !== "test") return;
      const { user, system } = process.cpuUsage();
      watched[1] = user + system;
      watched[0] = Date.now();
    });
    stream.on("test:complete", (event) => {
      if (event?.details?.type === "test") watched[0] = 0;
    });
  };
}

let finished = false;
function finish(message, code, signal) {
  if (finished) return;
  finished = true;
  socket.end(`${JSON.stringify(message)}\n`, () => {
    // Ends as the command did, so the sandbox reports the same exit.
    if (signal) {
      process.removeAllListeners(signal);
      process.kill(process.pid, signal);
    }
    process.exit(code ?? 1);
  });
}
