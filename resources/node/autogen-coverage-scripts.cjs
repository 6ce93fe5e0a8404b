// Loaded by autogen-bot into each node process of a V8 coverage run (NODE_OPTIONS
// --require, only while NODE_V8_COVERAGE is set). jest and vitest run TRANSFORMED code
// (ts-jest, babel, esbuild output in a module wrapper) through node:vm, so V8's coverage
// offsets are the transformed text's, not the file's on disk, and node keeps no source map
// for code compiled through vm (its coverage file's `source-map-cache` holds only modules its
// own loaders read). Here, for each script compiled through vm whose text ends in a
// `//# sourceMappingURL=` comment: its file name, length, line lengths, vm line and column
// offsets and the map's URL are appended to a file in the coverage folder, one JSON line per
// script; the bot ties them to the coverage's entries by URL and length and maps each range
// back to the original lines (src/engine/template/source-map.ts). It also writes the coverage
// of a vitest fork when it reports its stop (its pool then ends it by SIGTERM, and node writes
// coverage only on a normal exit). It adds no signal handler: one would change how a test's
// process dies (signal-exit, used by execa, re-raises a signal only when its handler is alone).
// It changes nothing else: each vm function is called with the arguments it was given.
"use strict";
const dir = process.env.NODE_V8_COVERAGE;
if (dir) {
  /* eslint-disable no-undef, @typescript-eslint/no-require-imports */
  const vm = require("node:vm");
  const fs = require("node:fs");
  const path = require("node:path");
  /* eslint-enable no-undef, @typescript-eslint/no-require-imports */
  const MAX_MAP_CHARS = 16 * 1024 * 1024;
  const file = path.join(dir, `autogen-scripts-${process.pid}-${Date.now()}-${Math.random().toString(36).slice(2)}.jsonl`);
  const note = (code, options) => {
    try {
      if (typeof code !== "string") return;
      const filename = typeof options === "string" ? options : options && options.filename;
      if (typeof filename !== "string" || filename.includes("/node_modules/")) return;
      const at = code.lastIndexOf("//# sourceMappingURL=");
      if (at < 0) return;
      const end = code.indexOf("\n", at);
      const map = code.slice(at + "//# sourceMappingURL=".length, end < 0 ? code.length : end).trim();
      if (map.length > MAX_MAP_CHARS) return;
      const lines = [];
      for (let from = 0; ; ) {
        const newline = code.indexOf("\n", from);
        lines.push((newline < 0 ? code.length : newline) - from);
        if (newline < 0) break;
        from = newline + 1;
      }
      const offsets = typeof options === "object" && options !== null ? options : {};
      const record = {
        filename,
        length: code.length,
        lineOffset: Number(offsets.lineOffset) || 0,
        columnOffset: Number(offsets.columnOffset) || 0,
        lines,
        map,
      };
      fs.mkdirSync(dir, { recursive: true });
      fs.appendFileSync(file, JSON.stringify(record) + "\n");
    } catch {
      // A record that cannot be written leaves that script's lines to the text on disk.
    }
  };
  const { Script: VmScript, runInThisContext, runInContext, runInNewContext, compileFunction } = vm;
  vm.Script = class Script extends VmScript {
    constructor(code, options) {
      note(code, options);
      super(...arguments);
    }
  };
  vm.runInThisContext = function (code, options) {
    note(code, options);
    return runInThisContext.apply(this, arguments);
  };
  vm.runInContext = function (code, context, options) {
    note(code, options);
    return runInContext.apply(this, arguments);
  };
  vm.runInNewContext = function (code, context, options) {
    note(code, options);
    return runInNewContext.apply(this, arguments);
  };
  vm.compileFunction = function (code, params, options) {
    note(code, options);
    return compileFunction.apply(this, arguments);
  };
  // `import vm from "node:vm"` reads the patched object; named imports see it after this.
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  require("node:module").syncBuiltinESMExports();
  // eslint-disable-next-line no-undef, @typescript-eslint/no-require-imports
  const { takeCoverage } = require("node:v8");
  // vitest's fork answers its pool's "stop" with "stopped", and is sent SIGTERM then and SIGKILL
  // 500 ms later: the coverage is written before that answer, so a slow write on a busy machine is not cut.
  if (typeof process.send === "function") {
    const send = process.send;
    process.send = function (message) {
      if (message && typeof message === "object" && message.type === "stopped" && message.__vitest_worker_response__) {
        takeCoverage();
      }
      return send.apply(this, arguments);
    };
  }
}
