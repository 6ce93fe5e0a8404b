// A node --test test that loops synchronously blocks --test-timeout (the event loop never
// turns): our preloaded watchdog stops it at the per-test limit, and the report names it as
// a failing test with its time, while the other test files still run and report.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokenRunReason } from "../../src/verify/load-failure.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { readWatchdogTimeouts } from "../../src/verify/node-test-watchdog.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-node-loop-"));
  await mkdir(join(dir, "test"));
  await writeFile(
    join(dir, "test", "spin.test.js"),
    'const test = require("node:test");\ntest("spins forever", () => {\n  for (;;) {}\n});\n',
  );
  await writeFile(
    join(dir, "test", "fine.test.js"),
    'const test = require("node:test");\nconst assert = require("node:assert");\ntest("adds", () => assert.equal(1 + 1, 2));\n',
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("node --test and a synchronous loop", () => {
  it("stops the looping test at the per-test limit, names it, and the other file still reports", async () => {
    const runner = detectRunner(dir, "node --test");
    // A run limit far above the per-test one: only the watchdog can stop the loop in time.
    const report = await localVerifier(runner, { timeoutMs: 120_000 }).run(dir, { kind: "all" }, undefined, {
      timeoutMs: 120_000,
      reason: "the test's limit",
      perTestMs: 1_000,
    });
    expect(report.run.timedOut).toBe(false);
    const byId = Object.fromEntries(report.tests.map((t) => [t.id, t.status]));
    expect(byId).toMatchObject({
      "test/spin.test.js > test > spins forever": "fail",
      "test/fine.test.js > test > adds": "pass",
    });
    expect(report.run.limit?.message).toMatch(/^timed out after 1 s in test\/spin\.test\.js > test > spins forever \(/);
    expect(brokenRunReason(report, dir)).toBeUndefined();
  }, 150_000);

  it("keeps the results of the tests that ended before the loop in the same file", async () => {
    const mixed = await mkdtemp(join(tmpdir(), "autogen-node-loop-mixed-"));
    try {
      await writeFile(
        join(mixed, "mixed.test.js"),
        [
          'const test = require("node:test");',
          'const assert = require("node:assert");',
          'test("adds", () => assert.equal(1 + 2, 3));',
          'test("scales", () => assert.equal(2 * 3, 6));',
          'test("counts down", () => {\n  let n = 5;\n  while (n !== 0) n -= 2;\n});',
          'test("never reached", () => assert.ok(true));',
          "",
        ].join("\n"),
      );
      const runner = detectRunner(mixed, "node --test mixed.test.js");
      const report = await localVerifier(runner, { timeoutMs: 120_000 }).run(mixed, { kind: "all" }, undefined, {
        timeoutMs: 120_000,
        reason: "the test's limit",
        perTestMs: 1_000,
      });
      const byId = Object.fromEntries(report.tests.map((t) => [t.id, t.status]));
      // A kill at the limit lost the two results node:test had not yet sent to its parent.
      expect(byId).toMatchObject({
        "mixed.test.js > test > adds": "pass",
        "mixed.test.js > test > scales": "pass",
        "mixed.test.js > test > counts down": "fail",
      });
      expect(byId["mixed.test.js > test > never reached"]).not.toBe("pass");
    } finally {
      await rm(mixed, { recursive: true, force: true });
    }
  }, 150_000);

  it("ignores marker lines that are not the watchdog's shape", () => {
    const report: TestReport = {
      run: {
        argv: [],
        exitCode: 1,
        signal: null,
        timedOut: false,
        durationMs: 1,
        output: 'autogen-test-timeout: {"file": 3}\nautogen-test-timeout: {not json}\n',
        outputBytes: 0,
        outputTruncated: false,
        isolation: "none",
      },
      tests: [{ id: "a > test > b", name: "b", status: "pass" }],
      source: "junit",
    };
    readWatchdogTimeouts(report, "/w");
    expect(report.tests).toEqual([{ id: "a > test > b", name: "b", status: "pass" }]);
  });
});
