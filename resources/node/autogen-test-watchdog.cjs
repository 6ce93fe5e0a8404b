// Loaded by autogen-bot into each `node --test` file process (`node --require=… --test`):
// a test that has used $AUTOGEN_TEST_TIMEOUT_MS of CPU time is stopped even when it loops
// synchronously (which blocks --test-timeout): a worker thread watches the process's CPU time
// since the test started (a loop burns CPU at full rate; a busy machine does not make a test's
// CPU time longer), and, for a test that blocks the thread without using CPU (Atomics.wait, a
// synchronous child), its wall-clock time against $AUTOGEN_TEST_WALL_TIMEOUT_MS (default 10 x
// the CPU limit; node's own --test-timeout, set to it, ends an asynchronous wait first, so the
// watchdog acts on the wall clock only a grace later). It prints
// "autogen-test-timeout: {file, test, ms, basis}" (basis "cpu" or "wall") and ends the main
// thread's JavaScript through the inspector; the process then ends by itself once the events of
// the tests before are sent (a kill at once lost them), or is killed 3 s later. The runner
// reports the file failed; the bot reads the line and names the test. It changes nothing else
// about how the tests run. In a coverage run (NODE_V8_COVERAGE set) the stopped process writes
// no coverage of its own (node writes it only on a normal exit), and the
// looping test would show no line at all: the watchdog's own inspector session takes precise
// coverage then, and writes it into that folder (node's format) before it stops the test. It
// starts that coverage only then: a start clears V8's function call counts, and one at the
// worker's launch landed wherever the main thread was (in the middle of a file's slow load).
"use strict";
const limit = Number(process.env.AUTOGEN_TEST_TIMEOUT_MS || 0);
const wallLimit = Number(process.env.AUTOGEN_TEST_WALL_TIMEOUT_MS || 0) || 10 * limit;
if (limit > 0 && String(process.env.NODE_TEST_CONTEXT || "").startsWith("child")) {
  // A --require preload is CommonJS (an --import is not passed on to node --test's file processes).
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  const { beforeEach, afterEach } = require("node:test");
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  const { Worker } = require("node:worker_threads");
  // The test's start: wall-clock ms, then the process's CPU time in µs; its name's length and bytes.
  const shared = new SharedArrayBuffer(16 + 4 + 1024);
  const started = new Float64Array(shared, 0, 2);
  const length = new Int32Array(shared, 16, 1);
  const name = new Uint8Array(shared, 20, 1024);
  const cpuNow = () => {
    const { user, system } = process.cpuUsage();
    return user + system;
  };
  beforeEach((t) => {
    const bytes = Buffer.from(String(t.name)).subarray(0, 1024);
    name.set(bytes);
    length[0] = bytes.length;
    started[1] = cpuNow();
    started[0] = Date.now();
  });
  afterEach(() => {
    started[0] = 0;
  });
  const source = `
    const { workerData } = require("node:worker_threads");
    const { writeSync } = require("node:fs");
    const inspector = require("node:inspector");
    const [shared, limit, wallLimit, file, coverageDir] = workerData;
    const started = new Float64Array(shared, 0, 2);
    const length = new Int32Array(shared, 16, 1);
    const name = new Uint8Array(shared, 20, 1024);
    const session = new inspector.Session();
    session.connectToMainThread();
    // Once its JavaScript is stopped the main thread still sends the events of the tests that ended
    // before (node --test's parent reads them) and the process ends by itself: the kill is a backstop.
    const stop = () =>
      session.post("Runtime.terminateExecution", () => setTimeout(() => process.kill(process.pid, "SIGKILL"), 3000));
    const writeCoverageThenStop = () => {
      // Should the inspector not answer, the test is stopped all the same.
      const fallback = setTimeout(stop, 2000);
      // Started only now: starting clears V8's function call counts, and this session starts while
      // the main thread runs (a start at the worker's launch landed in the middle of a slow load,
      // and the file's coverage lost what had run before it). node's own session keeps the mode.
      const take = () => session.post("Profiler.takePreciseCoverage", (error, taken) => {
        clearTimeout(fallback);
        if (!error && taken) {
          try {
            const base = "coverage-" + process.pid + "-" + Date.now() + "-watchdog.json";
            require("node:fs").writeFileSync(require("node:path").join(coverageDir, base), JSON.stringify(taken));
          } catch {
            // No coverage written: the test is still stopped and named.
          }
        }
        stop();
      });
      session.post("Profiler.enable", () =>
        session.post("Profiler.startPreciseCoverage", { callCount: true, detailed: true }, take),
      );
    };
    setInterval(() => {
      if (!started[0]) return;
      // process.cpuUsage() is the whole process's (every thread), as the Python side's ITIMER_PROF.
      const { user, system } = process.cpuUsage();
      const cpuMs = (user + system - started[1]) / 1000;
      const wallMs = Date.now() - started[0];
      const basis = cpuMs > limit ? "cpu" : wallMs > 1.2 * wallLimit + 1000 ? "wall" : undefined;
      if (!basis) return;
      const test = Buffer.from(name.slice(0, length[0])).toString();
      started[0] = 0;
      const ms = basis === "cpu" ? limit : wallLimit;
      writeSync(2, "autogen-test-timeout: " + JSON.stringify({ file, test, ms, basis }) + "\\n");
      if (coverageDir) writeCoverageThenStop();
      else stop();
    }, 50).unref();
  `;
  const coverageDir = process.env.NODE_V8_COVERAGE || "";
  new Worker(source, { eval: true, workerData: [shared, limit, wallLimit, process.argv[1] || "", coverageDir] }).unref();
}
