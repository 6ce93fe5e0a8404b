// Test commands as real projects write them (scripts seen in bench/runners/projects.json):
// several && steps, scripts calling scripts, pnpm/yarn running a binary, coverage wrappers,
// a pytest command naming its files, cargo's own arguments.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

async function withScripts(scripts: Record<string, string>): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-steps-"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ scripts }));
  return dir;
}

describe("the step of a script that runs the tests", () => {
  it("is the first step naming a test runner, not the last step (sindresorhus: `xo && ava && tsd`; fb55: `npm run test:vi && npm run lint`)", async () => {
    const sindre = detectRunner(await withScripts({ test: "xo && ava && tsd" }));
    expect(sindre.name).toBe("ava");
    expect(sindre.command({ kind: "all" }, "/r")).toEqual(["ava", "--tap"]);
    const fb55 = detectRunner(
      await withScripts({ test: "npm run test:vi && npm run lint", "test:vi": "vitest run", lint: "eslint ." }),
    );
    expect(fb55.name).toBe("vitest");
    const ms = detectRunner(
      await withScripts({
        test: "pnpm run test:nodejs && pnpm run test:edge",
        "test:nodejs": "jest --env node",
        "test:edge": "jest --env edge",
      }),
      "pnpm test",
    );
    expect(ms.name).toBe("jest");
    expect(ms.command({ kind: "all" }, "/r")).toEqual(["jest", "--ci", "--verbose", "--env", "node"]);
  });

  it("is still the last step when no step names a known runner, and a step it cannot read is passed over", async () => {
    expect(detectRunner(await withScripts({ test: "tsc && make check" })).command({ kind: "all" }, "/r")).toEqual([
      "make",
      "check",
    ]);
    expect(detectRunner(await withScripts({ test: "npm run missing && mocha t.js" })).name).toBe("mocha");
  });

  it("follows a script that calls another script (minimist, shell-quote: `npm run tests-only` → `nyc tape 'test/**/*.js'`)", async () => {
    const dir = await withScripts({ test: "npm run tests-only", "tests-only": "nyc tape 'test/**/*.js'" });
    const runner = detectRunner(dir, "npm test");
    expect(runner.name).toBe("tap");
    expect(runner.command({ kind: "all" }, "/r")).toEqual(["tape", "test/**/*.js"]);
  });

  it("takes the runner a coverage wrapper runs, past the wrapper's own options (fastq's nyc, yargs-parser's c8)", async () => {
    const fastq = detectRunner(
      await withScripts({
        test: "nyc --lines 100 --branches 100 --check-coverage --reporter=text tape test/test.js test/promise.js",
      }),
    );
    expect(fastq.command({ kind: "all" }, "/r")).toEqual(["tape", "test/test.js", "test/promise.js"]);
    const yargs = detectRunner(await withScripts({ test: "c8 --reporter=text --reporter=html mocha test/*.mjs" }));
    expect(yargs.name).toBe("mocha");
    expect(yargs.command({ kind: "all" }, "/r")).toEqual([
      "mocha",
      "test/*.mjs",
      "--reporter",
      "xunit",
      "--reporter-option",
      "output=/r",
    ]);
    const crossEnv = detectRunner(await withScripts({ test: "cross-env NODE_ENV=test jest" }));
    expect(crossEnv.name).toBe("jest");
    expect(crossEnv.commandEnv).toEqual({ NODE_ENV: "test" });
  });

  it("runs the binary `pnpm x` / `yarn x` names when no script has that name (unjs/defu: `pnpm vitest run`)", async () => {
    const defu = detectRunner(
      await withScripts({
        test: "pnpm lint && pnpm test:types && pnpm vitest run",
        lint: "oxlint src",
        "test:types": "tsgo --noEmit",
      }),
    );
    expect(defu.name).toBe("vitest");
    expect(detectRunner(await withScripts({ test: "yarn exec jest" })).name).toBe("jest");
    await expect(withScripts({ test: "pnpm run nothing" }).then((dir) => detectRunner(dir))).rejects.toThrow(
      'runs the package.json script "nothing", which package.json does not define',
    );
  });
});

describe("a pytest command that names its files", () => {
  it("runs a selection without them (else the whole file ran beside the selected test), keeping options and their values", () => {
    const runner = detectRunner(
      "/nonexistent",
      "python3 -m pytest -v --ignore benchmark -k 'not slow' test_inflection.py tests/",
    );
    const all = runner.command({ kind: "all" }, "/r");
    expect(all).toContain("test_inflection.py");
    const one = runner.command({ kind: "tests", ids: ["test_inflection.py::test_dasherize[a_b-a-b]"] }, "/r");
    expect(one).not.toContain("tests/");
    expect(one.filter((a) => a.startsWith("test_inflection.py"))).toEqual([
      "test_inflection.py::test_dasherize[a_b-a-b]",
    ]);
    expect(one).toEqual(expect.arrayContaining(["-v", "--ignore", "benchmark", "-k", "not slow"]));
  });
});

describe("cargo test", () => {
  it("keeps the command's own arguments and selects by libtest's exact name after `--`", () => {
    const runner = detectRunner("/nonexistent", "cargo test --all-features");
    expect(runner.name).toBe("cargo");
    expect(runner.command({ kind: "all" }, "/r")).toEqual(["cargo", "test", "--no-fail-fast", "--all-features"]);
    expect(
      runner.command({ kind: "tests", ids: ["tests::parsing::reads", "src/lib.rs - to_roman (line 10)"] }, "/r"),
    ).toEqual([
      "cargo",
      "test",
      "--no-fail-fast",
      "--all-features",
      "--",
      "--exact",
      "tests::parsing::reads",
      "src/lib.rs - to_roman (line 10)",
    ]);
    const quiet = detectRunner("/nonexistent", "cargo test -- --test-threads 1");
    expect(quiet.command({ kind: "tests", ids: ["a"] }, "/r")).toEqual([
      "cargo",
      "test",
      "--no-fail-fast",
      "--",
      "--test-threads",
      "1",
      "--exact",
      "a",
    ]);
  });
});

describe("go test", () => {
  it("keeps the command's flags and packages, and selects a subtest through its top-level test", () => {
    const runner = detectRunner("/nonexistent", "go test -race ./pkg/...");
    expect(runner.command({ kind: "all" }, "/r")).toEqual(["go", "test", "-v", "-race", "./pkg/..."]);
    expect(
      runner.command({ kind: "tests", ids: ["TestParse/empty_input", "TestParse/spaces", "TestNew"] }, "/r"),
    ).toEqual(["go", "test", "-v", "-run", "^(TestParse|TestNew)$", "-race", "./pkg/..."]);
    expect(runner.selectsByFiltering).toBe(true);
    expect(detectRunner("/nonexistent", "go test").command({ kind: "all" }, "/r")).toEqual([
      "go",
      "test",
      "-v",
      "./...",
    ]);
  });
});
