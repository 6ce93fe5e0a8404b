// The per-test limit counts CPU time, in the pytest plugin, the unittest wrapper and the node
// watchdog: a loop is stopped at it and named as that test's failure with its limit; a test
// that sleeps past it is not stopped (only a wall-clock limit many times longer would), and an
// honest test keeps passing while other processes take the machine's cores.
import { spawn, type ChildProcess } from "node:child_process";
import { availableParallelism } from "node:os";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokenRunReason } from "../../src/verify/load-failure.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import type { RunTimeLimit } from "../../src/verify/verifier.ts";

/** 1 s of CPU per test: under the old wall-clock limit, a 3 s sleep or a slowed-down honest test would be stopped too. */
const LIMIT: RunTimeLimit = { timeoutMs: 240_000, perTestMs: 1_000, reason: "the test's limit" };

const PYTEST = [
  "import time",
  "",
  "def test_spins():",
  "    while True:",
  "        pass",
  "",
  "def test_sleeps():",
  "    time.sleep(3)",
  "",
  "def test_half_a_second_of_cpu():",
  "    start = time.process_time()",
  "    while time.process_time() - start < 0.5:",
  "        pass",
  "",
].join("\n");

const UNITTEST = [
  "import time",
  "import unittest",
  "",
  "class LimitTest(unittest.TestCase):",
  "    def test_spins(self):",
  "        while True:",
  "            pass",
  "",
  "    def test_sleeps(self):",
  "        time.sleep(3)",
  "",
].join("\n");

const NODE = ['const test = require("node:test");', 'test("spins", () => {', "  for (;;) {}", "});"].join("\n");
const NODE_WAITS = [
  'const test = require("node:test");',
  'test("sleeps asynchronously", async () => {',
  "  await new Promise((resolve) => setTimeout(resolve, 3000));",
  "});",
  'test("blocks synchronously", () => {',
  "  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 3000);",
  "});",
  'test("half a second of cpu", () => {',
  "  const start = process.cpuUsage();",
  "  const used = () => { const u = process.cpuUsage(start); return (u.user + u.system) / 1000; };",
  "  while (used() < 500) {}",
  "});",
].join("\n");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-cpu-limit-"));
  await mkdir(join(dir, "py", "tests"), { recursive: true });
  await writeFile(join(dir, "py", "tests", "test_limit.py"), PYTEST);
  await mkdir(join(dir, "ut", "tests"), { recursive: true });
  await writeFile(join(dir, "ut", "tests", "__init__.py"), "");
  await writeFile(join(dir, "ut", "tests", "test_limit.py"), UNITTEST);
  await mkdir(join(dir, "js", "test"), { recursive: true });
  await writeFile(join(dir, "js", "test", "spin.test.js"), NODE);
  await writeFile(join(dir, "js", "test", "waits.test.js"), NODE_WAITS);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** Processes that only burn CPU, more than the machine has cores, for the length of `body`. */
async function withCpuHogs<T>(body: () => Promise<T>): Promise<T> {
  const hogs: ChildProcess[] = [];
  for (let i = 0; i < availableParallelism() + 2; i++)
    hogs.push(spawn("python3", ["-c", "while True: pass"], { stdio: "ignore" }));
  try {
    return await body();
  } finally {
    for (const hog of hogs) hog.kill("SIGKILL");
  }
}

describe("the per-test limit counts CPU time", () => {
  it("pytest: a loop fails at its CPU limit, a sleep past it passes, an honest test passes on a busy machine", async () => {
    const cwd = join(dir, "py");
    const runner = detectRunner(cwd, "python3 -m pytest tests");
    const report = await withCpuHogs(() =>
      localVerifier(runner, { timeoutMs: LIMIT.timeoutMs, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } }).run(
        cwd,
        { kind: "all" },
        undefined,
        LIMIT,
      ),
    );
    expect(Object.fromEntries(report.tests.map((t) => [t.id, t.status]))).toEqual({
      "tests/test_limit.py::test_spins": "fail",
      "tests/test_limit.py::test_sleeps": "pass",
      "tests/test_limit.py::test_half_a_second_of_cpu": "pass",
    });
    expect(report.tests.find((t) => t.id.endsWith("test_spins"))?.message).toContain("timed out after 1 s of CPU time");
    expect(report.run.timedOut).toBe(false);
    expect(report.run.limit?.message).toMatch(/^timed out after 1 s in tests\/test_limit\.py::test_spins \(/);
    expect(brokenRunReason(report, cwd)).toBeUndefined();
  }, 300_000);

  it("unittest: a loop errors at its CPU limit, a sleep past it passes", async () => {
    const cwd = join(dir, "ut");
    const runner = detectRunner(cwd, "python3 -m unittest discover -s tests -t .");
    const report = await localVerifier(runner, { timeoutMs: LIMIT.timeoutMs }).run(
      cwd,
      { kind: "all" },
      undefined,
      LIMIT,
    );
    expect(Object.fromEntries(report.tests.map((t) => [t.id, t.status]))).toEqual({
      "tests.test_limit.LimitTest.test_spins": "error",
      "tests.test_limit.LimitTest.test_sleeps": "pass",
    });
    expect(report.tests.find((t) => t.id.endsWith("test_spins"))?.message).toContain("timed out after 1 s of CPU time");
    expect(report.run.limit?.message).toMatch(/^timed out after 1 s in tests\.test_limit\.LimitTest\.test_spins \(/);
  }, 300_000);

  it("node --test: a synchronous loop fails at its CPU limit; sleeps past it and an honest test on a busy machine pass", async () => {
    const cwd = join(dir, "js");
    const runner = detectRunner(cwd, "node --test");
    const report = await withCpuHogs(() =>
      localVerifier(runner, { timeoutMs: LIMIT.timeoutMs }).run(cwd, { kind: "all" }, undefined, LIMIT),
    );
    expect(Object.fromEntries(report.tests.map((t) => [t.id, t.status]))).toEqual({
      "test/spin.test.js > test > spins": "fail",
      "test/waits.test.js > test > sleeps asynchronously": "pass",
      "test/waits.test.js > test > blocks synchronously": "pass",
      "test/waits.test.js > test > half a second of cpu": "pass",
    });
    expect(report.tests.find((t) => t.name === "spins")?.message).toContain("timed out after 1 s of CPU time");
    expect(report.run.timedOut).toBe(false);
    expect(brokenRunReason(report, cwd)).toBeUndefined();
  }, 300_000);
});
