import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { splitCommand } from "../../src/verify/runners/split-command.ts";
import { NoTestsDetectedError } from "../../src/verify/runners/test-runner.ts";

async function repo(files: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-detect-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
  return dir;
}

describe("detectRunner", () => {
  it("finds pytest from its configuration or from test files", async () => {
    expect(detectRunner(await repo({ "pyproject.toml": "[tool.pytest.ini_options]\n" })).name).toBe("pytest");
    expect(detectRunner(await repo({ "setup.cfg": "[tool:pytest]\n" })).name).toBe("pytest");
    expect(detectRunner(await repo({ "tox.ini": "[pytest]\n" })).name).toBe("pytest");
    expect(detectRunner(await repo({ "src/pkg/tests/test_x.py": "" })).name).toBe("pytest");
  });

  it("keeps what follows a flag the bot drops (`jest --coverage src/` still runs src/), and drops an option's value", async () => {
    const withScript = (test: string) => repo({ "package.json": JSON.stringify({ scripts: { test } }) });
    const all = { kind: "all" } as const;
    const jest = detectRunner(await withScript("jest --coverage src/ --watch false test/unit"));
    expect(jest.command(all, "/r.xml")).toEqual(["jest", "--ci", "--verbose", "src/", "test/unit"]);
    const vitest = detectRunner(await withScript("vitest --watch tests/a.test.ts --reporter dot tests/b.test.ts"));
    expect(vitest.command(all, "/r.xml").slice(0, 4)).toEqual(["vitest", "run", "tests/a.test.ts", "tests/b.test.ts"]);
    const mocha = detectRunner(await withScript("mocha -w -R spec test/x.js"));
    expect(mocha.command(all, "/r.xml").slice(0, 2)).toEqual(["mocha", "test/x.js"]);
    const ava = detectRunner(await withScript("ava --verbose test/a.js"));
    expect(ava.command(all, "/r.xml")).toEqual(["ava", "test/a.js", "--tap"]);
  });

  it("reads the npm test script to tell vitest, jest, mocha and node --test apart", async () => {
    const withScript = (test: string) => repo({ "package.json": JSON.stringify({ scripts: { test } }) });
    expect(detectRunner(await withScript("vitest run")).name).toBe("vitest");
    expect(detectRunner(await withScript("tsc && jest --coverage")).name).toBe("jest");
    expect(detectRunner(await withScript("mocha 'test/**/*.js'")).name).toBe("mocha");
    expect(detectRunner(await withScript("node --test test/")).name).toBe("node-test");
  });

  it("finds go, cargo, maven and gradle projects", async () => {
    expect(detectRunner(await repo({ "go.mod": "module x\n" })).name).toBe("go");
    expect(detectRunner(await repo({ "Cargo.toml": "[package]\n" })).name).toBe("cargo");
    expect(detectRunner(await repo({ "pom.xml": "<project/>" })).name).toBe("maven");
    expect(detectRunner(await repo({ "build.gradle": "" })).name).toBe("gradle");
  });

  it("builds selection and report arguments per runner", async () => {
    const py = detectRunner(await repo({ "pytest.ini": "[pytest]\n" }));
    const argv = py.command({ kind: "tests", ids: ["tests/test_a.py::test_one"] }, "/tmp/r.xml");
    expect(argv.slice(1, 3)).toEqual(["-m", "pytest"]);
    expect(argv).toContain("--junitxml=/tmp/r.xml");
    expect(argv.at(-1)).toBe("tests/test_a.py::test_one");
    const node = detectRunner(await repo({ "package.json": JSON.stringify({ scripts: { test: "node --test" } }) }));
    expect(node.command({ kind: "tests", ids: ["adds numbers"] }, "/tmp/r.xml")).toEqual([
      "node",
      "--test-reporter=tap",
      "--test-reporter-destination=stdout",
      "--test-reporter=junit",
      "--test-reporter-destination=/tmp/r.xml",
      "--test-name-pattern=^(adds numbers)$",
      "--test",
    ]);
    const go = detectRunner(await repo({ "go.mod": "module x\n" }));
    expect(go.command({ kind: "tests", ids: ["TestAdd"] }, "/tmp/r")).toEqual([
      "go",
      "test",
      "-v",
      "-run",
      "^(TestAdd)$",
      "./...",
    ]);
  });

  it("uses the configured command over detection, split without a shell", async () => {
    const runner = detectRunner(await repo({}), "python3 -m pytest -q 'tests/unit tests'");
    expect(runner.name).toBe("pytest");
    expect(runner.command({ kind: "all" }, "/tmp/r.xml")).toContain("tests/unit tests");
  });

  it("says what it looked for when a repository has no tests", async () => {
    const dir = await repo({ "README.md": "hello" });
    expect(() => detectRunner(dir)).toThrow(NoTestsDetectedError);
    expect(() => detectRunner(dir)).toThrow(
      /^no test command found in .*: looked for pytest .*package\.json scripts\.test.*go\.mod.*Set test\.command in \.github\/autogen\.yml \(or pass --test-cmd\)\.$/,
    );
  });

  it("never lets a test id become an option", async () => {
    const py = detectRunner(await repo({ "pytest.ini": "" }));
    expect(() => py.command({ kind: "tests", ids: ["--rootdir=/"] }, "/tmp/r.xml")).toThrow(
      "refusing test id that could be read as an option",
    );
  });
});

describe("splitCommand", () => {
  it("splits with quotes and escapes, and expands nothing", () => {
    expect(splitCommand(`pytest -k "not slow" 'a b' c\\ d $HOME`.replace("$HOME", "x"))).toEqual([
      "pytest",
      "-k",
      "not slow",
      "a b",
      "c d",
      "x",
    ]);
    expect(splitCommand("npm   test")).toEqual(["npm", "test"]);
  });

  it("refuses shell syntax instead of passing it on", () => {
    expect(() => splitCommand("pytest; rm -rf /")).toThrow('shell syntax ";" is not supported');
    expect(() => splitCommand("pytest | tee log")).toThrow('shell syntax "|"');
    expect(() => splitCommand("echo $(id)")).toThrow('shell syntax "$"');
    expect(() => splitCommand("pytest 'unclosed")).toThrow("unclosed quote");
  });
});

describe("a configured command that is no known runner", () => {
  it("is a custom runner, judged by its exit code, not mistaken for a Node runner", async () => {
    const runner = detectRunner(await repo({}), "make check");
    expect(runner.name).toBe("custom");
    expect(runner.reportFormat).toBe("none");
    expect(runner.command({ kind: "all" }, "/tmp/r.xml")).toEqual(["make", "check"]);
  });
});
