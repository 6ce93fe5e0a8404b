// Real pytest on layouts real projects use: tests a class inherits from a mixin in
// tests/__init__.py (cachetools), and a command that names its test files (inflection).
// Each test keeps its own node id, and one failing test is selected alone.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { countByStatus, type TestReport } from "../../src/verify/test-report.ts";

function project(): string {
  const dir = mkdtempSync(join(tmpdir(), "autogen-pyids-"));
  mkdirSync(join(dir, "tests"));
  writeFileSync(
    join(dir, "tests/__init__.py"),
    "class SizeMixin:\n    def test_size(self):\n        assert self.size == 1\n\n    def test_name(self):\n        assert self.name\n",
  );
  writeFileSync(
    join(dir, "tests/test_lru.py"),
    "import unittest\nfrom . import SizeMixin\n\nclass LRUTest(unittest.TestCase, SizeMixin):\n    size = 1\n    name = 'lru'\n",
  );
  writeFileSync(
    join(dir, "tests/test_fifo.py"),
    "import unittest\nfrom . import SizeMixin\n\nclass FIFOTest(unittest.TestCase, SizeMixin):\n    size = 2\n    name = 'fifo'\n",
  );
  return dir;
}

const run = (dir: string, command: string, ids?: string[]): Promise<TestReport> =>
  localVerifier(detectRunner(dir, command), { timeoutMs: 120_000 }).run(
    dir,
    ids ? { kind: "tests", ids } : { kind: "all" },
  );

describe("pytest node ids on real layouts", () => {
  it("gives a test inherited from a mixin in tests/__init__.py its class's id, and selects the failing one alone", async () => {
    const dir = project();
    const all = await run(dir, "python3 -m pytest tests");
    expect(countByStatus(all.tests)).toEqual({ pass: 3, fail: 1, error: 0, skip: 0 });
    expect(new Set(all.tests.map((t) => t.id)).size).toBe(4);
    const failing = all.tests.filter((t) => t.status === "fail").map((t) => t.id);
    expect(failing).toEqual(["tests/test_fifo.py::FIFOTest::test_size"]);
    const one = await run(dir, "python3 -m pytest tests", failing);
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["tests/test_fifo.py::FIFOTest::test_size:fail"]);
  }, 120_000);

  it("runs a selected test alone when the command names test files", async () => {
    const dir = project();
    const command = "python3 -m pytest -q tests/test_lru.py tests/test_fifo.py";
    const all = await run(dir, command);
    expect(all.tests).toHaveLength(4);
    const one = await run(dir, command, ["tests/test_lru.py::LRUTest::test_name"]);
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["tests/test_lru.py::LRUTest::test_name:pass"]);
    expect(one.run.exitCode).toBe(0);
  }, 120_000);
});
