import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { countByStatus } from "../../src/verify/test-report.ts";
import { writeRepo } from "../support/python-task.ts";
import { splitEnvAssignments } from "../../src/verify/runners/command-env.ts";
import { readPackageScript } from "../../src/verify/runners/package-script.ts";
import { splitCommand } from "../../src/verify/runners/split-command.ts";
import { fullTitle, fullTitlePattern } from "../../src/verify/runners/test-titles.ts";
import { keepSelected } from "../../src/verify/keep-selected.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

describe("a test command's environment assignments", () => {
  it("keeps `env A=1 prog` and `A=1 prog` assignments as the run's environment and the rest as argv", () => {
    expect(splitEnvAssignments(splitCommand("env PYTHONPATH=src python3 -m pytest -q tests"))).toEqual({
      env: { PYTHONPATH: "src" },
      argv: ["python3", "-m", "pytest", "-q", "tests"],
    });
    expect(splitEnvAssignments(splitCommand("PYTHONPATH=src:lib DEBUG= pytest"))).toEqual({
      env: { PYTHONPATH: "src:lib", DEBUG: "" },
      argv: ["pytest"],
    });
    expect(splitEnvAssignments(["pytest", "-k", "A=1"])).toEqual({ env: {}, argv: ["pytest", "-k", "A=1"] });
  });

  it("runs `PYTHONPATH=src pytest` as written (real pytest): the code imports in the whole run and in a single test's", async () => {
    const dir = await writeRepo({
      "src/shop/__init__.py": "",
      "src/shop/cart.py": "def total(prices):\n    return sum(prices) + 1\n",
      "tests/test_cart.py":
        "from shop.cart import total\n\n\ndef test_total():\n    assert total([1, 2]) == 3\n\n\ndef test_empty():\n    assert total([]) == 1\n",
    });
    const sandbox = { timeoutMs: 120_000, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } };
    for (const command of ["PYTHONPATH=src pytest", "PYTHONPATH=src python3 -m pytest -q tests"]) {
      const verifier = localVerifier(detectRunner(dir, command), sandbox);
      const all = await verifier.run(dir, { kind: "all" });
      expect(all.run.output).not.toContain("No module named");
      expect(countByStatus(all.tests)).toEqual({ pass: 1, fail: 1, error: 0, skip: 0 });
      const one = await verifier.run(dir, { kind: "tests", ids: ["tests/test_cart.py::test_total"] });
      expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["tests/test_cart.py::test_total:fail"]);
    }
    // The same command without the assignment cannot import the code: the assignment is what made it work.
    const bare = await localVerifier(detectRunner(dir, "pytest"), sandbox).run(dir, { kind: "all" });
    expect(bare.run.output).toContain("No module named 'shop'");
  }, 120_000);

  it("refuses what may not be set for a test run, and commands that run nothing, with what to do", () => {
    expect(() => splitEnvAssignments(splitCommand("LD_PRELOAD=/tmp/x.so pytest"))).toThrow(
      "the test command sets LD_PRELOAD, which cannot be set for test runs: remove it from the command",
    );
    expect(() => splitEnvAssignments(splitCommand("AUTOGEN_TEST_TIMEOUT=0 pytest"))).toThrow(
      "sets AUTOGEN_TEST_TIMEOUT",
    );
    expect(() => splitEnvAssignments(splitCommand("env -i pytest"))).toThrow(
      'the test command\'s "env -i" is not supported',
    );
    expect(() => splitEnvAssignments(splitCommand("env A=1"))).toThrow("names no program to run");
  });
});

describe("npm, yarn and pnpm scripts", () => {
  const withScripts = async (scripts: Record<string, string>) => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-script-"));
    await writeFile(join(dir, "package.json"), JSON.stringify({ scripts }));
    return dir;
  };

  it("reads the script the command runs, with the command's extra arguments", async () => {
    const dir = await withScripts({ test: "tsc && mocha tests.js", "test:unit": "tape test/*.js" });
    expect(readPackageScript(dir, ["npm", "test"])).toBe("tsc && mocha tests.js");
    expect(readPackageScript(dir, ["npm", "run", "test:unit", "--", "--x"])).toBe("tape test/*.js --x");
    expect(readPackageScript(dir, ["yarn", "test:unit"])).toBe("tape test/*.js");
    expect(readPackageScript(dir, ["pnpm", "run", "test"])).toBe("tsc && mocha tests.js");
    expect(readPackageScript(dir, ["pnpm", "vitest", "run"])).toBeUndefined();
    expect(readPackageScript(dir, ["make", "test"])).toBeUndefined();
  });

  it("names a missing script or package.json", async () => {
    const dir = await withScripts({ test: "ava" });
    expect(() => readPackageScript(dir, ["npm", "run", "lint"])).toThrow(
      'the test command "npm run lint" runs the package.json script "lint", which package.json does not define',
    );
    const empty = await mkdtemp(join(tmpdir(), "autogen-script-"));
    expect(() => readPackageScript(empty, ["npm", "test"])).toThrow("the repository has no package.json");
  });
});

describe("selection by full title and by filtering", () => {
  it("builds the full title vitest, jest and mocha match (describe names and the test's, by spaces)", () => {
    expect(fullTitle("test/calc.test.ts > calc > divide > throws on zero")).toBe("calc divide throws on zero");
    expect(fullTitle("calc > adds")).toBe("calc adds");
    const pattern = new RegExp(fullTitlePattern(["test/a.test.ts > outer > adds (1+1)"]));
    expect(pattern.test("outer adds (1+1)")).toBe(true);
    expect(pattern.test("test/a.test.ts outer adds (1+1)")).toBe(true);
    expect(pattern.test("outer adds (1+1) twice")).toBe(false);
    expect(() => fullTitlePattern(["--inspect"])).toThrow("refusing test id");
  });

  const report = (exitCode: number, tests: [string, "pass" | "fail"][]): TestReport => ({
    run: {
      argv: [],
      exitCode,
      signal: null,
      timedOut: false,
      durationMs: 1,
      output: "",
      outputBytes: 0,
      outputTruncated: false,
      isolation: "none",
    },
    tests: tests.map(([id, status]) => ({ id, name: id, status })),
    source: "console",
  });

  it("keeps the selected tests; the exit code speaks for them when only others failed", () => {
    const kept = keepSelected(
      report(1, [
        ["a", "pass"],
        ["b", "fail"],
      ]),
      { kind: "tests", ids: ["a"] },
    );
    expect(kept.tests.map((t) => t.id)).toEqual(["a"]);
    expect(kept.run.exitCode).toBe(0);
    expect(
      keepSelected(
        report(1, [
          ["a", "fail"],
          ["b", "fail"],
        ]),
        { kind: "tests", ids: ["a"] },
      ).run.exitCode,
    ).toBe(1);
    // Nothing failed, yet the command failed: that is not ours to excuse.
    expect(
      keepSelected(
        report(3, [
          ["a", "pass"],
          ["b", "pass"],
        ]),
        { kind: "tests", ids: ["a"] },
      ).run.exitCode,
    ).toBe(3);
    expect(
      keepSelected(
        report(1, [
          ["a", "pass"],
          ["b", "fail"],
        ]),
        { kind: "tests", ids: ["zz"] },
      ),
    ).toMatchObject({ tests: [], source: "none", run: { exitCode: 1 } });
  });
});
