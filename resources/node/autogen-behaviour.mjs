// Behaviour harness run by autogen-bot inside the sandbox (never on the host):
// `node autogen-behaviour.mjs REQUEST.json RESULT.json`.
//
// REQUEST: {"module": "src/flags.js", "calls": [{"call": "f(1)", "expected": "2" | null}], "limit": seconds}.
// Loads the module by its path in the working directory (CommonJS by `require`, ESM by
// `import()`, TypeScript through the node version's type stripping), evaluates each call
// expression with the module's exports in scope, and writes for each call its output:
// {"kind": "value", "repr": ...}, {"kind": "raised", "type": ..., "message": ...} or
// {"kind": "timeout"}; for an expected expression, its own value the same way ("raises
// Name" is an expected exception). The calls are model-written: the bot has parsed each
// one and sends only single expressions; the sandbox is what contains them. Each call runs
// in a worker thread the main thread ends at the time limit, so a synchronous loop, a
// blocked `Atomics.wait` or a promise that never settles stops there; a new worker loads
// the module again for the calls after it.
import { readFileSync, writeFileSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { inspect } from "node:util";
import { Worker, isMainThread, parentPort, workerData } from "node:worker_threads";

const REPR_CAP = 400;
const MESSAGE_CAP = 300;
const ITEMS_CAP = 200;

function cap(text, limit) {
  return text.length <= limit ? text : `${text.slice(0, limit)}…[cut]`;
}

async function main() {
  const [requestPath, resultPath] = process.argv.slice(2);
  const request = JSON.parse(readFileSync(requestPath, "utf8"));
  const limitMs = Math.max(100, Number(request.limit ?? 5) * 1000);
  const name = String(request.module);
  const result = { module: name, calls: [] };
  const path = resolve(process.cwd(), name);
  const inside = relative(process.cwd(), path);
  if (isAbsolute(name) || inside.startsWith("..") || isAbsolute(inside)) {
    result.error = cap(`importing ${name} failed: not a path inside the repository`, MESSAGE_CAP);
  } else {
    let runner;
    try {
      for (const call of request.calls) {
        runner ??= await start(path, limitMs * 2);
        const output = await runner.ask({ source: call.call }, limitMs);
        if (output.kind === "timeout") runner = undefined;
        let expected = null;
        if (typeof call.expected === "string") {
          const raises = /^\s*raises\s+([A-Za-z_$][\w.$]*)\s*$/.exec(call.expected);
          if (raises) expected = { kind: "raised", type: raises[1].split(".").at(-1) };
          else {
            runner ??= await start(path, limitMs * 2);
            expected = await runner.ask({ source: call.expected }, limitMs);
            if (expected.kind === "timeout") runner = undefined;
          }
        }
        result.calls.push({ output, expected });
      }
    } catch (error) {
      result.calls = [];
      result.error = cap(`importing ${name} failed: ${String(error instanceof Error ? error.message : error)}`, MESSAGE_CAP);
    } finally {
      await runner?.end();
    }
  }
  writeFileSync(resultPath, JSON.stringify(result));
  // A module may leave handles open (timers, servers): the result is written, so stop here.
  process.exit(0);
}

/** A worker with the module loaded, or an error naming why it did not load. */
async function start(path, importLimitMs) {
  const worker = new Worker(new URL(import.meta.url), { workerData: { path }, stdout: true, stderr: true });
  // What the module and the calls print is not their output: drained and dropped.
  worker.stdout.resume();
  worker.stderr.resume();
  let pending;
  const settle = (value) => {
    const p = pending;
    pending = undefined;
    p?.(value);
  };
  worker.on("message", (message) => settle(message));
  worker.on("error", (error) => settle({ kind: "crashed", message: String(error?.message ?? error) }));
  worker.on("exit", (code) => settle({ kind: "crashed", message: `the worker exited (code ${code})` }));
  const wait = (limitMs) =>
    new Promise((done) => {
      const timer = setTimeout(() => settle({ kind: "timeout" }), limitMs);
      pending = (value) => {
        clearTimeout(timer);
        done(value);
      };
    });
  const ready = await wait(importLimitMs);
  if (ready.kind !== "ready") {
    await worker.terminate();
    throw new Error(ready.kind === "timeout" ? "timed out" : ready.message);
  }
  return {
    async ask(message, limitMs) {
      const answer = wait(limitMs);
      worker.postMessage(message);
      const output = await answer;
      if (output.kind === "timeout") await worker.terminate();
      if (output.kind === "crashed") {
        await worker.terminate();
        return { kind: "raised", type: "WorkerExit", message: cap(output.message, MESSAGE_CAP) };
      }
      return output;
    },
    end: () => worker.terminate(),
  };
}

const IDENTIFIER = /^[A-Za-z_$][\w$]*$/;
const RESERVED = new Set(
  (
    "break case catch class const continue debugger default delete do else enum export extends false finally for " +
    "function if import in instanceof new null return super switch this throw true try typeof var void while with " +
    "yield let static implements interface package private protected public await arguments eval"
  ).split(" "),
);

async function worker() {
  const { path } = workerData;
  let scope;
  try {
    scope = await load(path);
  } catch (error) {
    parentPort.postMessage({ kind: "failed", message: `${errorName(error)}: ${errorMessage(error)}` });
    return;
  }
  const names = Object.keys(scope);
  const values = names.map((n) => scope[n]);
  parentPort.on("message", async ({ source }) => {
    parentPort.postMessage(await evaluate(source, names, values));
  });
  parentPort.postMessage({ kind: "ready" });
}

/** The names a call sees: the module's exports by name, and the module itself as `mod` (its default export when it has one). */
async function load(path) {
  const commonJs = /\.c[jt]s$/.test(path) || (/\.[jt]s$/.test(path) && !nearestTypeIsModule(path));
  let exports;
  let whole;
  if (commonJs) {
    const { createRequire } = await import("node:module");
    whole = createRequire(path)(path);
    exports = whole !== null && (typeof whole === "object" || typeof whole === "function") ? { ...whole } : {};
  } else {
    const namespace = await import(pathToFileURL(path).href);
    exports = { ...namespace };
    delete exports.default;
    whole = "default" in namespace ? namespace.default : namespace;
  }
  const scope = {};
  for (const [key, value] of Object.entries(exports))
    if (IDENTIFIER.test(key) && !RESERVED.has(key) && key !== "mod") scope[key] = value;
  scope.mod = whole;
  return scope;
}

function nearestTypeIsModule(path) {
  let dir = resolve(path, "..");
  for (;;) {
    try {
      const text = readFileSync(resolve(dir, "package.json"), "utf8");
      return JSON.parse(text).type === "module";
    } catch {
      const up = resolve(dir, "..");
      if (up === dir) return false;
      dir = up;
    }
  }
}

async function evaluate(source, names, values) {
  let run;
  try {
    // The bot sent one expression, parsed as `(call)`; evaluated as exactly that text.
    run = new Function(...names, `return (${source}\n);`);
  } catch (error) {
    return { kind: "invalid", message: cap(`not a JavaScript expression: ${errorMessage(error)}`, MESSAGE_CAP) };
  }
  try {
    let value = run(...values);
    if (value !== null && typeof value === "object" && typeof value.then === "function") value = await value;
    return { kind: "value", repr: cap(await describe(value), REPR_CAP) };
  } catch (error) {
    return { kind: "raised", type: errorName(error), message: cap(errorMessage(error), MESSAGE_CAP) };
  }
}

function errorName(error) {
  if (error instanceof Error || (error !== null && typeof error === "object" && typeof error.name === "string"))
    return String(error.name || error.constructor?.name || "Error");
  return error === null ? "null" : typeof error;
}

function errorMessage(error) {
  if (error instanceof Error || (error !== null && typeof error === "object" && "message" in error))
    return String(error.message);
  return stable(error);
}

/** A generator's or iterator's output is its items; anything else, its stable form. */
async function describe(value) {
  if (isIterator(value)) {
    const items = [];
    for (let i = 0; i <= ITEMS_CAP; i++) {
      const step = value.next();
      if (step.done) break;
      items.push(step.value);
    }
    const more = items.length > ITEMS_CAP ? ", …" : "";
    return `iterator of [${items.slice(0, ITEMS_CAP).map(stable).join(", ")}${more}]`;
  }
  return stable(value);
}

function isIterator(value) {
  return (
    value !== null &&
    typeof value === "object" &&
    typeof value.next === "function" &&
    typeof value[Symbol.iterator] === "function" &&
    !Array.isArray(value) &&
    !(value instanceof Map) &&
    !(value instanceof Set)
  );
}

/** The same text for the same value on every run: util.inspect on one line, never calling the value's own code (no custom inspect, getters or proxy traps). */
function stable(value) {
  return inspect(value, {
    depth: 6,
    breakLength: Infinity,
    compact: true,
    maxArrayLength: ITEMS_CAP,
    maxStringLength: REPR_CAP,
    customInspect: false,
    getters: false,
    showProxy: true,
    colors: false,
    sorted: false,
  });
}

if (isMainThread) await main();
else await worker();
