import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    reporters: ["default", "./test/support/summary-reporter.ts"],
    // A guard against hangs, not a speed check: end-to-end tests run real pytest and node
    // in the sandbox, and on a busy 2-core machine one can take several times its idle time.
    testTimeout: 180_000,
    hookTimeout: 180_000,
    // Tests start real processes (git, python, node); two cores, so keep it modest.
    pool: "forks",
    maxWorkers: 2,
  },
});
