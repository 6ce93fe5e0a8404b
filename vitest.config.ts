import { readFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { configDefaults, defineConfig } from "vitest/config";
import LongestFirstSequencer from "./test/support/longest-first-sequencer.ts";
import { OWN_PROCESS_FILES } from "./test/support/own-process-files.ts";

export default defineConfig({
  plugins: [
    {
      // @actions/workflow-parser (a test-only dependency, inlined below) ships source maps
      // without their sources, and Vite would warn about each of its files.
      name: "workflow-parser-without-source-maps",
      enforce: "pre",
      load(id) {
        if (/\/node_modules\/@actions\/workflow-parser\/dist\/.*\.js$/.test(id))
          return readFileSync(id, "utf8").replace(/^\/\/# sourceMappingURL=.*$/m, "");
        return undefined;
      },
    },
  ],
  test: {
    environment: "node",
    // A temporary folder per test file, removed when the file ends, and nock off at its end (see the files).
    setupFiles: ["./test/support/per-file-tmpdir.ts", "./test/support/per-file-network.ts"],
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // A guard against hangs, not a speed check: end-to-end tests run real pytest and node
    // in the sandbox, and on a busy 2-core machine one can take several times its idle time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Tests start real processes (git, python, node, the sandbox) and wait on them. Measured on
    // 2 cores, quiet, fresh clone: one worker a core, vitest 1,110 s with 0.89 cores busy; two
    // a core, 1,124 s with 1.04 busy: no faster, so the waits are not for CPU (disk, process
    // start-up). Two a core are kept (not yet compared with one under load): `npm test` beside
    // two CPU hogs passed in 1,684 s, and the App, security and Action files 285 of 285 at load
    // 11-16.
    pool: "forks",
    maxWorkers: Math.min(8, 2 * availableParallelism()),
    // On a fresh clone, the long files first, by their recorded durations (see the sequencer).
    sequence: { sequencer: LongestFirstSequencer },
    // @actions/workflow-parser imports its schema JSON without an import attribute, which
    // Node's loader refuses; inlined, Vite's transform loads it.
    server: { deps: { inline: ["@actions/workflow-parser"] } },
    // Worker processes run file after file (isolate: false): a fresh process and module graph per
    // file cost ~1 CPU-second each. The files named in test/support/own-process-files.ts (they
    // replace a module) keep a process of their own. Each file still gets its own temporary folder
    // and ends with nock off (the setup files); caches in test/support are kept by file.
    projects: [
      { extends: true, test: { name: "own-process", include: [...OWN_PROCESS_FILES] } },
      {
        extends: true,
        test: {
          name: "shared-process",
          include: ["test/**/*.test.ts"],
          exclude: [...configDefaults.exclude, ...OWN_PROCESS_FILES],
          isolate: false,
        },
      },
    ],
  },
});
