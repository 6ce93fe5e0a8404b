// The local Verifier on real repositories with the real pytest.
import { cp, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner, pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { allPassed, countByStatus } from "../../src/verify/test-report.ts";

const MIXED = fileURLToPath(new URL("../fixtures/repos/py-mixed/", import.meta.url));
const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };

async function copyOf(dir: string): Promise<string> {
  const target = await mkdtemp(join(tmpdir(), "autogen-verify-"));
  await cp(dir, target, { recursive: true });
  return target;
}

describe("localVerifier with pytest", () => {
  it("runs the full suite and reports every test from the JUnit file", async () => {
    const verifier = localVerifier(detectRunner(MIXED), { timeoutMs: 60_000, env: ENV });
    const report = await verifier.run(MIXED, { kind: "all" });
    expect(report.source).toBe("junit");
    expect(report.run.exitCode).toBe(1);
    expect(countByStatus(report.tests)).toEqual({ pass: 4, fail: 4, error: 1, skip: 2 });
    expect(allPassed(report)).toBe(false);
  });

  it("runs only the selected tests", async () => {
    const verifier = localVerifier(detectRunner(MIXED), { timeoutMs: 60_000, env: ENV });
    const report = await verifier.run(MIXED, {
      kind: "tests",
      ids: ["tests/test_calc.py::TestDivide::test_divide", "tests/test_calc.py::test_add"],
    });
    expect(report.tests.map((t) => `${t.id}:${t.status}`).sort()).toEqual([
      "tests/test_calc.py::TestDivide::test_divide:pass",
      "tests/test_calc.py::test_add:pass",
    ]);
    expect(allPassed(report)).toBe(true);
  });

  it("fails a hanging test alone through the per-test timeout, keeping the report", async () => {
    const dir = await copyOf(MIXED);
    await writeFile(
      join(dir, "tests", "test_hang.py"),
      "def test_hangs():\n    while True:\n        pass\n\ndef test_fine():\n    assert True\n",
    );
    const verifier = localVerifier(pytestRunner([], "test"), {
      timeoutMs: 60_000,
      env: { ...ENV, AUTOGEN_TEST_TIMEOUT: "0.5" },
    });
    const report = await verifier.run(dir, { kind: "tests", ids: ["tests/test_hang.py"] });
    expect(report.run.timedOut).toBe(false);
    expect(report.tests.map((t) => `${t.name}:${t.status}`)).toEqual(["test_hangs:fail", "test_fine:pass"]);
    expect(report.tests[0]?.message).toContain("TimeoutError");
  });

  it("falls back to the console when the runner crashes before writing its report", async () => {
    const dir = await copyOf(MIXED);
    // A conftest that kills the interpreter mid-run: pytest never writes its JUnit file.
    await writeFile(
      join(dir, "conftest.py"),
      "import os\n\ndef pytest_runtest_teardown(item):\n    if item.name == 'test_add_wrong':\n        os._exit(3)\n",
    );
    const verifier = localVerifier(pytestRunner([], "test"), { timeoutMs: 60_000, env: ENV });
    const report = await verifier.run(dir, { kind: "all" });
    expect(report.run.exitCode).toBe(3);
    expect(report.source).toBe("none");
    expect(report.tests).toEqual([]);
    expect(allPassed(report)).toBe(false);
  });

  it("reports a test command that does not exist", async () => {
    const verifier = localVerifier(detectRunner(MIXED, "no-such-test-tool --all"), { timeoutMs: 10_000 });
    const report = await verifier.run(MIXED, { kind: "all" });
    expect(report.run.spawnError).toMatch(/^command not found: no-such-test-tool/);
    expect(report.source).toBe("none");
  });

  it("times out a whole run that hangs and says so", async () => {
    const dir = await copyOf(MIXED);
    await writeFile(join(dir, "conftest.py"), "import time\n\ndef pytest_sessionstart(session):\n    time.sleep(60)\n");
    const verifier = localVerifier(pytestRunner([], "test"), { timeoutMs: 1_500, env: ENV });
    const report = await verifier.run(dir, { kind: "all" });
    expect(report.run.timedOut).toBe(true);
    expect(report.tests).toEqual([]);
  });
});
