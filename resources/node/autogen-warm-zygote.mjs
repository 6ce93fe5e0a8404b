// A warm zygote for one validation slot (src/verify/warm/warm-zygote-slot.ts): a node process
// started in the sandbox ahead of the candidate, which has paid for the sandbox's set-up and
// its own start and reads nothing from the workspace. It says it is ready on the bot's unix
// socket ($AUTOGEN_WARM_SOCKET), waits for one request (the cold run's exact argv, a time
// limit), runs that command as its child with its own stdio and environment, reports how it
// ended, and exits as the child did. One request per zygote: nothing outlives a candidate.
import { spawn } from "node:child_process";
import { connect } from "node:net";
import { constants } from "node:os";
import { performance } from "node:perf_hooks";

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
