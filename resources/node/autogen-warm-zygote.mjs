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
// Loaded before the candidate arrives, so the in-process run pays for neither.
import { run as runTests } from "node:test";
import { junit, tap } from "node:test/reporters";

const MAX_LINE = 256 * 1024;

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

function run(request) {
  const argv = Array.isArray(request?.argv) ? request.argv.filter((a) => typeof a === "string") : [];
  const timeoutMs = typeof request?.timeoutMs === "number" && request.timeoutMs > 0 ? request.timeoutMs : 0;
  if (argv.length === 0 || timeoutMs === 0) process.exit(2);
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
  // Our synchronous-loop watchdog acts in node --test's file processes only; in process, the run's limit stops a loop.
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
  // The run's own verdict, as node --test's exit code (a failing todo test does not fail it).
  let success = false;
  let exitCode;
  try {
    const stream = runTests({
      files: [plan.file],
      isolation: "none",
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
