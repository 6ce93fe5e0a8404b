// A loop inside unittest's subTest: the subTest catches the per-test limit's TimeoutError and
// goes on to its next subtest, which loops too; the limit keeps firing until the test ends,
// so the test errors, named, instead of holding the run until the run's own limit.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

const TEST = [
  "import unittest",
  "",
  "def spin(n):",
  "    while n:",
  "        pass",
  "",
  "class SpinTest(unittest.TestCase):",
  "    def test_each(self):",
  "        for n in [1, 2, 3]:",
  "            with self.subTest(n=n):",
  "                spin(n)",
  "",
  "    def test_ok(self):",
  "        pass",
  "",
].join("\n");
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-subtest-loop-"));
  await mkdir(join(dir, "tests"));
  await writeFile(join(dir, "tests/__init__.py"), "");
  await writeFile(join(dir, "tests/test_spin.py"), TEST);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("unittest: a loop in every subtest", () => {
  it("is stopped in each subtest: the test errors at the per-test limit, the run is not stopped whole", async () => {
    const runner = detectRunner(dir, "python3 -m unittest discover -s tests -t .");
    const report = await localVerifier(runner, { timeoutMs: 300_000 }).run(dir, { kind: "all" }, undefined, {
      timeoutMs: 300_000,
      perTestMs: 1_000,
      reason: "the test's limit",
    });
    expect(report.tests.map((t) => [t.id, t.status])).toEqual([
      ["tests.test_spin.SpinTest.test_each", "error"],
      ["tests.test_spin.SpinTest.test_ok", "pass"],
    ]);
    expect(report.run.limit?.name).toBe("test-time");
    expect(report.run.limit?.message).toMatch(/^timed out after 1 s in tests\.test_spin\.SpinTest\.test_each \(/);
  }, 360_000);
});
