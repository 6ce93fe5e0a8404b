// The warm pytest runner against the cold run it stands in for, with the real pytest in the
// real sandbox: the same results for the same candidates, cold runs where it cannot be
// faithful, and candidates that loop, exit or damage the interpreter end with their fork.
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import type { TestReport } from "../../src/verify/test-report.ts";
import type { WarmSlot } from "../../src/verify/warm/warm-pytest-slot.ts";

const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };
const LIMIT = { timeoutMs: 20_000, reason: "the test's candidate limit" };
const IDS = [
  "tests/test_calc.py::test_add",
  "tests/test_calc.py::test_add_module",
  "tests/test_calc.py::test_scale",
  "tests/test_calc.py::test_cases",
];

// `from … import`, module attribute access, a package re-export and a parametrised test.
const FILES: Record<string, string> = {
  "calc/__init__.py": "from .core import add, scale\n",
  "calc/core.py": "FACTOR = 2\n\ndef add(a, b):\n    return a - b\n\ndef scale(x):\n    return x * FACTOR\n",
  "tests/conftest.py": "import pytest\n\n@pytest.fixture\ndef two():\n    return 2\n",
  "tests/test_calc.py": [
    "import pytest",
    "import calc.core",
    "from calc import add, scale",
    "from calc.core import FACTOR",
    "",
    "def test_add(two):",
    "    assert add(1, two) == 3",
    "",
    "def test_add_module():",
    "    assert calc.core.add(2, 2) == 4",
    "",
    "def test_scale():",
    "    assert scale(3) == 3 * FACTOR",
    "",
    "@pytest.mark.parametrize('a,b,s', [(1, 1, 2), (0, 5, 5)])",
    "def test_cases(a, b, s):",
    "    assert add(a, b) == s",
    "",
    "def test_other():",
    "    assert True",
    "",
  ].join("\n"),
};

const core = (addBody: string, factor = "2") =>
  `FACTOR = ${factor}\n\ndef add(a, b):\n    ${addBody}\n\ndef scale(x):\n    return x * FACTOR\n`;

const dirs: string[] = [];
const slots: WarmSlot[] = [];
afterEach(async () => {
  for (const slot of slots.splice(0)) await slot.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspace(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-warm-test-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(FILES)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function setup(dir: string, env: Record<string, string> = ENV) {
  const cold = localVerifier(pytestRunner([], "test"), { timeoutMs: 120_000, env, warm: true });
  const slot = cold.openWarm?.(dir);
  if (!slot) throw new Error("a pytest verifier with warm: true offers a warm runner");
  slots.push(slot);
  return { cold, slot };
}

const results = (report: TestReport) => report.tests.map((t) => `${t.id}=${t.status}`).sort();

describe("warm pytest runner", () => {
  it("gives the cold run's results over a series of candidates, a reverted one included", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    const series = [
      core("return a * b"),
      core("return a + b"),
      core("return a + b", "3"),
      core("return a - b"),
      core("return a + b"),
    ];
    const seen: string[][] = [];
    for (const text of series) {
      await writeFile(join(dir, "calc/core.py"), text);
      const warm = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
      const coldReport = await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT);
      expect(warm.source).toBe("junit");
      expect(results(warm)).toEqual(results(coldReport));
      expect(warm.run.exitCode).toBe(coldReport.run.exitCode);
      seen.push(results(warm));
    }
    // The series really changes outcomes: the reverted candidate fails again as the original does.
    expect(seen[1]?.every((r) => r.endsWith("=pass"))).toBe(true);
    expect(seen[3]).toContain("tests/test_calc.py::test_add=fail");
    expect(seen[3]).toContain("tests/test_calc.py::test_scale=pass");
    expect(seen[2]).toContain("tests/test_calc.py::test_scale=pass");
    expect(slot.stats).toMatchObject({ warm: 5, cold: 0, starts: 1 });
  }, 240_000);

  it("runs cold when a candidate touches a test file or conftest.py, with the cold results", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(join(dir, "calc/core.py"), core("return a + b"));
    await writeFile(join(dir, "tests/conftest.py"), "import pytest\n\n@pytest.fixture\ndef two():\n    return 3\n");
    const warm = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(warm)).toEqual(results(await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT)));
    expect(results(warm)).toContain("tests/test_calc.py::test_add=fail");
    expect(slot.stats.cold).toBe(1);
    expect(slot.stats.coldReasons[0]).toContain("tests/conftest.py");

    await writeFile(join(dir, "tests/conftest.py"), FILES["tests/conftest.py"] ?? "");
    await writeFile(
      join(dir, "tests/test_calc.py"),
      `${FILES["tests/test_calc.py"] ?? ""}\ndef test_new():\n    assert False\n`,
    );
    const edited = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(slot.stats.cold).toBe(2);
    expect(slot.stats.coldReasons[1]).toContain("tests/test_calc.py");
    expect(results(edited).every((r) => r.endsWith("=pass"))).toBe(true);
  }, 240_000);

  it("stops a looping candidate at its limit and serves the next one from the same server", async () => {
    const dir = await workspace();
    const { slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(join(dir, "calc/core.py"), core("while True:\n        pass"));
    const looped = await slot.run({ kind: "tests", ids: IDS }, { timeoutMs: 2000, reason: "the test's short limit" });
    expect(looped.run.timedOut).toBe(true);
    expect(looped.run.limit).toEqual({ name: "wall-time", message: "timed out after 2 s (the test's short limit)" });
    await writeFile(join(dir, "calc/core.py"), core("return a + b"));
    const next = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(next).every((r) => r.endsWith("=pass"))).toBe(true);
    expect(results(next)).toHaveLength(5);
    expect(slot.stats).toMatchObject({ warm: 2, starts: 1 });
  }, 240_000);

  it("stops each looping test at its CPU limit, as a cold run does: the tests fail, named, the run is not stopped whole", async () => {
    const dir = await workspace();
    const { slot } = setup(dir);
    await writeFile(join(dir, "calc/core.py"), core("while True:\n        pass"));
    const limit = { timeoutMs: 30_000, perTestMs: 1_000, reason: "the test's candidate limit" };
    const looped = await slot.run({ kind: "tests", ids: IDS }, limit);
    expect(slot.stats.warm).toBe(1);
    expect(looped.run.timedOut).toBe(false);
    expect(results(looped)).toEqual([
      "tests/test_calc.py::test_add=fail",
      "tests/test_calc.py::test_add_module=fail",
      "tests/test_calc.py::test_cases[0-5-5]=fail",
      "tests/test_calc.py::test_cases[1-1-2]=fail",
      "tests/test_calc.py::test_scale=pass",
    ]);
    expect(looped.tests.find((t) => t.id === "tests/test_calc.py::test_add")?.message).toContain(
      "timed out after 1 s of CPU time",
    );
    expect(looped.run.limit).toMatchObject({ name: "test-time" });
  }, 120_000);

  it("does not let a candidate that exits the interpreter or damages sys.modules poison the next", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(join(dir, "calc/core.py"), core("import os; os._exit(7)"));
    const exited = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(exited.run.exitCode).toBe(7);
    expect(exited.tests.filter((t) => t.status === "pass")).toHaveLength(0);
    await writeFile(join(dir, "calc/core.py"), core("import sys; sys.modules.clear(); globals().clear(); return 0"));
    await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    await writeFile(join(dir, "calc/core.py"), core("return a * b"));
    const next = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(next)).toEqual(results(await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT)));
    expect(results(next)).toContain("tests/test_calc.py::test_add=fail");
    expect(results(next)).toContain("tests/test_calc.py::test_scale=pass");
    expect(slot.stats).toMatchObject({ warm: 3, starts: 1 });
  }, 240_000);

  it("has no more access than a cold run: a file hidden from the sandbox stays hidden from the server and its forks", async () => {
    const secretDir = await mkdtemp(join(tmpdir(), "autogen-warm-secret-"));
    dirs.push(secretDir);
    const secret = join(secretDir, "secret.txt");
    await writeFile(secret, "canary-warm-4b1d");
    const dir = await workspace();
    // Read once at collection (in the server) and once in the test (in a fork); both must fail.
    await writeFile(
      join(dir, "tests/test_secret.py"),
      `def _read():\n    try:\n        return open(${JSON.stringify(secret)}).read()\n    except OSError:\n        return None\n\nAT_IMPORT = _read()\n\ndef test_secret_hidden():\n    assert AT_IMPORT is None and _read() is None\n\ndef test_written_outside():\n    try:\n        open(${JSON.stringify(join(secretDir, "planted"))}, "w").write("x")\n    except OSError:\n        return\n    assert False\n`,
    );
    const { slot } = setup(dir);
    const ids = ["tests/test_secret.py::test_secret_hidden", "tests/test_secret.py::test_written_outside"];
    await slot.prepare({ kind: "tests", ids });
    await writeFile(join(dir, "calc/core.py"), core("return a + b"));
    const report = await slot.run({ kind: "tests", ids }, LIMIT);
    expect(slot.stats.warm).toBe(1);
    expect(results(report)).toEqual(ids.map((id) => `${id}=pass`));
    expect(await readFile(secret, "utf8")).toBe("canary-warm-4b1d");
    await expect(readFile(join(secretDir, "planted"), "utf8")).rejects.toThrow();
  }, 240_000);

  it("is not offered when warm runs are off", () => {
    expect(localVerifier(pytestRunner([], "test"), { timeoutMs: 1000 }).openWarm).toBeUndefined();
    expect(localVerifier(pytestRunner([], "test"), { timeoutMs: 1000, warm: false }).openWarm).toBeUndefined();
  });
});
