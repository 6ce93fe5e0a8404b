// Finds how a repository runs its tests, per ecosystem, or uses the configured command.
// Each runner knows how to select tests and ask for a JUnit report.
import { existsSync, readdirSync } from "node:fs";
import { tryReadWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { join } from "node:path";
import { parseGoTest } from "../parsers/parse-go-test.ts";
import { parsePytestConsole } from "../parsers/parse-pytest-console.ts";
import { parseTap } from "../parsers/parse-tap.ts";
import { parseAnyTap } from "../parsers/parse-any-tap.ts";
import { splitEnvAssignments } from "./command-env.ts";
import { avaRunner, jestRunner, mochaRunner, tapRunner, vitestRunner } from "./js-runners.ts";
import { lastStep, readPackageScript } from "./package-script.ts";
import { PYTEST_PLUGIN, withPytestPlugin } from "./pytest-plugin.ts";
import { pythonExecutable } from "./python-executable.ts";
import { splitCommand } from "./split-command.ts";
import { unittestArgs, unittestRunner } from "./unittest-runner.ts";
import { watchdogArgs, watchdogEnv } from "../node-test-watchdog.ts";
import { escapeRegExp, NoTestsDetectedError, safeIds, type TestRunner, type TestSelection } from "./test-runner.ts";

const LOOKED_FOR = [
  "pytest (pytest.ini, pyproject.toml [tool.pytest], setup.cfg/tox.ini [pytest], test_*.py)",
  "package.json scripts.test (vitest, jest, mocha, ava, tape or any TAP producer, node --test)",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
];

/** Manifests and runner configs read to detect the runner; a larger one is not read. */
const MANIFEST_READ_LIMIT = 1024 * 1024;

export function detectRunner(dir: string, configured?: string | null): TestRunner {
  if (configured) return runnerForLine(configured, `test.command "${configured}"`, dir);
  const has = (name: string) => existsSync(join(dir, name));
  const read = (name: string) => (has(name) ? (tryReadWorktreeTextSync(dir, name, { maxBytes: MANIFEST_READ_LIMIT }) ?? "") : "");

  if (has("pytest.ini") || /\[tool\.pytest/.test(read("pyproject.toml")) || /\[(tool:)?pytest\]/.test(read("setup.cfg") + read("tox.ini")) || hasPythonTests(dir)) {
    return pytestRunner([], "pytest configuration or test_*.py files");
  }
  if (has("package.json")) {
    const pkg = JSON.parse(read("package.json")) as { scripts?: Record<string, string> };
    const script = pkg.scripts?.test;
    if (script && !/no test specified/.test(script)) return runnerForLine(lastStep(script), `package.json scripts.test "${script}"`, dir);
  }
  if (has("go.mod")) return goRunner();
  if (has("Cargo.toml")) return simpleRunner("cargo", ["cargo", "test"], "Cargo.toml", (ids) => ids.slice(0, 1));
  if (has("pom.xml")) return simpleRunner("maven", ["mvn", "-q", "test"], "pom.xml", (ids) => [`-Dtest=${ids.join(",")}`]);
  if (has("build.gradle") || has("build.gradle.kts")) return simpleRunner("gradle", [has("gradlew") ? "./gradlew" : "gradle", "test"], "build.gradle", (ids) => ids.flatMap((id) => ["--tests", id]));
  throw new NoTestsDetectedError(dir, LOOKED_FOR);
}

function hasPythonTests(dir: string, depth = 0): boolean {
  if (depth > 3) return false;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".") || entry.name === "node_modules") continue;
    if (entry.isFile() && /^test_.*\.py$|_test\.py$/.test(entry.name)) return true;
    if (entry.isDirectory() && hasPythonTests(join(dir, entry.name), depth + 1)) return true;
  }
  return false;
}

/**
 * A command line as the repository wrote it: its environment assignments kept for the run,
 * an npm/yarn/pnpm script read from package.json, then the runner its program names.
 */
function runnerForLine(line: string, evidence: string, dir: string, depth = 0): TestRunner {
  const { env, argv } = splitEnvAssignments(splitCommand(line));
  const script = depth === 0 ? readPackageScript(dir, argv) : undefined;
  const runner = script !== undefined ? runnerForLine(script, `${evidence}: package.json script "${script}"`, dir, depth + 1) : runnerForCommand(argv, evidence, dir);
  return withCommandEnv(runner, env);
}

/** The command's own assignments (`PYTHONPATH=src`) under whatever the runner adds (our plugin joins PYTHONPATH, not replaces it). */
function withCommandEnv(runner: TestRunner, commandEnv: Record<string, string>): TestRunner {
  if (Object.keys(commandEnv).length === 0) return runner;
  const prepare = runner.prepareEnv;
  return { ...runner, commandEnv, prepareEnv: (env, options) => (prepare ? prepare({ ...env, ...commandEnv }, options) : { ...env, ...commandEnv }) };
}

function runnerForCommand(given: string[], evidence: string, dir: string): TestRunner {
  // `npx mocha …`: the program is the one npx runs (from node_modules/.bin, on PATH for the run).
  const argv = given[0] === "npx" ? afterOptions(given.slice(1)) : given;
  const joined = argv.join(" ");
  const program = (argv[0] ?? "").split("/").at(-1) ?? "";
  const rest = argv.slice(1);
  if (/\bpytest\b/.test(joined)) {
    const extra = argv.slice(argv.findIndex((a) => /pytest$/.test(a)) + 1);
    return pytestRunner(extra, evidence);
  }
  const unittest = unittestArgs(argv);
  if (unittest) return unittestRunner(unittest, evidence);
  if (program === "vitest") return vitestRunner(rest, evidence, dir);
  if (program === "jest") return jestRunner(rest, evidence, dir);
  if (program === "mocha" || program === "_mocha") return mochaRunner(rest, evidence, dir);
  if (program === "ava") return avaRunner(rest, evidence, dir);
  if (program === "tape" || program === "tap") return tapRunner(argv, evidence, dir);
  if (program === "node" && argv.includes("--test")) return nodeTestRunner(argv, evidence);
  if (program === "go") return goRunner();
  // Anything else (make test, tox -e py, a script): run it as given, results from its TAP output if it prints any, else its exit code.
  const bin = join(dir, "node_modules", ".bin");
  return { name: "custom", evidence, reportFormat: "none", pathPrefix: [bin], parseConsole: parseAnyTap, selectsByFiltering: true, command: () => argv };
}

function afterOptions(args: string[]): string[] {
  const at = args.findIndex((a) => !a.startsWith("-"));
  return at < 0 ? [] : args.slice(at);
}

export function pytestRunner(extra: string[], evidence: string): TestRunner {
  return {
    name: "pytest",
    evidence,
    reportFormat: "junit",
    pathPrefix: [],
    parseConsole: parsePytestConsole,
    // Our plugin's per-test alarm; a tighter limit already in the environment (eval's) is kept.
    prepareEnv: (env, options) => withPytestPlugin(env, perTestEnv(env, options?.perTestMs)),
    command: (selection: TestSelection, reportPath: string) => [
      pythonExecutable(),
      "-m",
      "pytest",
      ...extra.filter((a) => !a.startsWith("--junitxml")),
      "-rA",
      "--color=no",
      "-p",
      "no:cacheprovider",
      "-p",
      PYTEST_PLUGIN,
      "-o",
      "junit_family=xunit1",
      `--junitxml=${reportPath}`,
      ...(selection.kind === "tests" ? safeIds(selection.ids) : []),
    ],
  };
}

function perTestEnv(env: Record<string, string> | undefined, perTestMs: number | undefined): Record<string, string> {
  if (perTestMs === undefined) return {};
  const given = Number(env?.AUTOGEN_TEST_TIMEOUT ?? 0);
  const ours = Math.ceil(perTestMs) / 1000;
  return { AUTOGEN_TEST_TIMEOUT: String(given > 0 && given < ours ? given : ours) };
}

function nodeTestRunner(argv: string[], evidence: string): TestRunner {
  return {
    name: "node-test",
    evidence,
    reportFormat: "junit",
    pathPrefix: [],
    // A synchronous loop blocks --test-timeout: our watchdog, preloaded into each test file's process, stops it.
    prepareEnv: (env, options) => ({ ...env, ...(options?.perTestMs !== undefined ? watchdogEnv(options.perTestMs) : {}) }),
    command: (selection, reportPath, options) => {
      const [node, ...rest] = argv;
      const pattern = selection.kind === "tests" ? [`--test-name-pattern=^(${safeIds(selection.ids).map((id) => escapeRegExp(id.split(" > ").at(-1) ?? id)).join("|")})$`] : [];
      // Stops a test that waits forever; a synchronous loop blocks it, and our watchdog (prepareEnv) stops that.
      const timeout = options?.perTestMs !== undefined ? [`--test-timeout=${String(Math.ceil(options.perTestMs))}`] : [];
      const watchdog = options?.perTestMs !== undefined ? watchdogArgs() : [];
      return [node ?? "node", ...watchdog, "--test-reporter=tap", "--test-reporter-destination=stdout", "--test-reporter=junit", `--test-reporter-destination=${reportPath}`, ...timeout, ...pattern, ...rest];
    },
    parseConsole: parseTap,
  };
}

function goRunner(): TestRunner {
  return {
    name: "go",
    evidence: "go.mod",
    reportFormat: "none",
    pathPrefix: [],
    parseConsole: parseGoTest,
    command: (selection) => ["go", "test", "-v", ...(selection.kind === "tests" ? ["-run", `^(${safeIds(selection.ids).map(escapeRegExp).join("|")})$`] : []), "./..."],
  };
}

function simpleRunner(name: "cargo" | "maven" | "gradle", base: string[], evidence: string, select: (ids: string[]) => string[]): TestRunner {
  return { name, evidence, reportFormat: "none", pathPrefix: [], command: (selection) => [...base, ...(selection.kind === "tests" ? select(safeIds(selection.ids)) : [])] };
}
