import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    environment: "node",
    reporters: ["default", "./test/support/summary-reporter.ts"],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    // Tests start real processes (git, python, node); two cores, so keep it modest.
    pool: "forks",
    maxWorkers: 2,
  },
});
