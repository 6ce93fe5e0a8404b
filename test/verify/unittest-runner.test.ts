// `python -m unittest …` as the repository wrote it, on a real unittest project
// (test/fixtures/repos/py-unittest): per-test results with unittest's own ids, a single
// test selected by id, and a test that loops stopped at the per-test limit and named.
import { cp, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { brokenRunReason } from "../../src/verify/load-failure.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { unittestArgs } from "../../src/verify/runners/unittest-runner.ts";

const FIXTURE = join(import.meta.dirname, "../fixtures/repos/py-unittest");
const LIMIT = { timeoutMs: 60_000, reason: "the test's limit", perTestMs: 1_000 };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-unittest-"));
  await cp(FIXTURE, dir, { recursive: true });
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("unittestArgs", () => {
  it("reads python/python3/python3.11 -m unittest and nothing else", () => {
    expect(unittestArgs(["python3", "-m", "unittest", "discover", "-s", "tests"])).toEqual(["discover", "-s", "tests"]);
    expect(unittestArgs(["/usr/bin/python3.11", "-m", "unittest"])).toEqual([]);
    expect(unittestArgs(["python", "-m", "pytest"])).toBeUndefined();
    expect(unittestArgs(["node", "-m", "unittest"])).toBeUndefined();
  });
});

describe("the unittest runner on a real unittest project", () => {
  it("reports each test by its unittest id, the looping one stopped and named", async () => {
    const runner = detectRunner(dir, "python3 -m unittest discover -s tests -t .");
    expect(runner.name).toBe("unittest");
    const report = await localVerifier(runner, { timeoutMs: 60_000 }).run(dir, { kind: "all" }, undefined, LIMIT);
    const statuses = Object.fromEntries(report.tests.map((t) => [t.id, t.status]));
    expect(statuses).toEqual({
      "tests.test_ops.AddTest.test_big": "skip",
      "tests.test_ops.AddTest.test_negative": "pass",
      "tests.test_ops.AddTest.test_small": "pass",
      "tests.test_ops.IsqrtTest.test_perfect_square": "pass",
      "tests.test_ops.IsqrtTest.test_two": "error",
      "tests.test_ops.MeanTest.test_mean": "fail",
      "tests.test_ops.MeanTest.test_mean_per_length": "fail",
    });
    expect(report.source).toBe("junit");
    expect(report.tests.find((t) => t.id.endsWith("test_mean"))?.message).toBe("AssertionError: 1.0 != 2");
    expect(report.run.limit?.message).toMatch(/^timed out after 1 s in tests\.test_ops\.IsqrtTest\.test_two \(/);
    expect(brokenRunReason(report, dir)).toBeUndefined();
  }, 120_000);

  it("runs a single selected test, in the command's own discovery", async () => {
    const runner = detectRunner(dir, "python3 -m unittest discover -s tests -t .");
    const report = await localVerifier(runner, { timeoutMs: 60_000 }).run(
      dir,
      { kind: "tests", ids: ["tests.test_ops.MeanTest.test_mean"] },
      undefined,
      LIMIT,
    );
    expect(report.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["tests.test_ops.MeanTest.test_mean:fail"]);
    expect(report.run.exitCode).toBe(1);
  }, 120_000);

  it("refuses a selected id that could be read as an option", () => {
    const runner = detectRunner(dir, "python3 -m unittest");
    expect(() => runner.command({ kind: "tests", ids: ["--autogen-report=/etc/x"] }, "/tmp/r.xml")).toThrow(
      /refusing test id/,
    );
  });
});
