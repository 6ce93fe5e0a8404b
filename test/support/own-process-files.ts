// The test files that keep a worker process of their own (vitest.config.ts): every other file
// runs in a worker process that runs file after file, where a module replaced with vi.mock would
// stay replaced for the files after it. test/own-process-files.test.ts checks the list.
export const OWN_PROCESS_FILES = [
  "test/cli/flag-help.test.ts",
  "test/engine/template-parallel-race.test.ts",
  "test/workspace/unified-diff.test.ts",
];
