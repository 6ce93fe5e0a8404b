// Loaded by autogen-bot into each `node --test` file process (`node --require=… --test`):
// a test still running after $AUTOGEN_TEST_TIMEOUT_MS is stopped even when it loops
// synchronously (which blocks --test-timeout): a worker thread watches the test's start
// time, prints "autogen-test-timeout: {file, test, ms}" and ends the main thread's JavaScript
// through the inspector, then the process. The runner reports the file failed; the bot
// reads the line and names the test. It changes nothing else about how the tests run.
"use strict";
const limit = Number(process.env.AUTOGEN_TEST_TIMEOUT_MS || 0);
if (limit > 0 && String(process.env.NODE_TEST_CONTEXT || "").startsWith("child")) {
  // A --require preload is CommonJS (an --import is not passed on to node --test's file processes).
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  const { beforeEach, afterEach } = require("node:test");
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  const { Worker } = require("node:worker_threads");
  const shared = new SharedArrayBuffer(8 + 4 + 1024);
  const started = new Float64Array(shared, 0, 1);
  const length = new Int32Array(shared, 8, 1);
  const name = new Uint8Array(shared, 12, 1024);
  beforeEach((t) => {
    const bytes = Buffer.from(String(t.name)).subarray(0, 1024);
    name.set(bytes);
    length[0] = bytes.length;
    started[0] = Date.now();
  });
  afterEach(() => {
    started[0] = 0;
  });
  const source = `
    const { workerData } = require("node:worker_threads");
    const { writeSync } = require("node:fs");
    const inspector = require("node:inspector");
    const [shared, limit, file] = workerData;
    const started = new Float64Array(shared, 0, 1);
    const length = new Int32Array(shared, 8, 1);
    const name = new Uint8Array(shared, 12, 1024);
    const session = new inspector.Session();
    session.connectToMainThread();
    setInterval(() => {
      if (!started[0] || Date.now() - started[0] <= limit) return;
      const test = Buffer.from(name.slice(0, length[0])).toString();
      started[0] = 0;
      writeSync(2, "autogen-test-timeout: " + JSON.stringify({ file, test, ms: limit }) + "\\n");
      session.post("Runtime.terminateExecution", () => process.kill(process.pid, "SIGKILL"));
    }, 50).unref();
  `;
  new Worker(source, { eval: true, workerData: [shared, limit, process.argv[1] || ""] }).unref();
}
