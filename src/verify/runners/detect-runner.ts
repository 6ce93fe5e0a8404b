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
import { readPackageScript, scriptSteps } from "./package-script.ts";
import { cargoRunner } from "./cargo-runner.ts";
import { PYTEST_PLUGIN, withPytestPlugin } from "./pytest-plugin.ts";
import { pythonExecutable } from "./python-executable.ts";
import { splitCommand } from "./split-command.ts";
import { unittestArgs, unittestRunner } from "./unittest-runner.ts";
import { watchdogArgs, watchdogEnv } from "../node-test-watchdog.ts";
import { pythonPerTestEnv, WALL_FACTOR } from "../per-test-limit.ts";
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
  const read = (name: string) =>
    has(name) ? (tryReadWorktreeTextSync(dir, name, { maxBytes: MANIFEST_READ_LIMIT }) ?? "") : "";

  if (
    has("pytest.ini") ||
    /\[tool\.pytest/.test(read("pyproject.toml")) ||
    /\[(tool:)?pytest\]/.test(read("setup.cfg") + read("tox.ini")) ||
    hasPythonTests(dir)
  ) {
    return pytestRunner([], "pytest configuration or test_*.py files");
  }
  if (has("package.json")) {
    const pkg = JSON.parse(read("package.json")) as { scripts?: Record<string, string> };
    const script = pkg.scripts?.test;
    if (script && !/no test specified/.test(script))
      return runnerForScript(script, `package.json scripts.test "${script}"`, dir, 1);
  }
  if (has("go.mod")) return goRunner([], "go.mod");
  if (has("Cargo.toml")) return cargoRunner(["cargo", "test"], "Cargo.toml");
  if (has("pom.xml"))
    return simpleRunner("maven", ["mvn", "-q", "test"], "pom.xml", (ids) => [`-Dtest=${ids.join(",")}`]);
  if (has("build.gradle") || has("build.gradle.kts"))
    return simpleRunner("gradle", [has("gradlew") ? "./gradlew" : "gradle", "test"], "build.gradle", (ids) =>
      ids.flatMap((id) => ["--tests", id]),
    );
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

/** How deep `npm test` → `npm run tests-only` → … is followed. */
const MAX_SCRIPT_DEPTH = 4;

/**
 * A command line as the repository wrote it: its environment assignments kept for the run,
 * an npm/yarn/pnpm script read from package.json (scripts calling scripts followed), then
 * the runner its program names.
 */
function runnerForLine(line: string, evidence: string, dir: string, depth = 0): TestRunner {
  const { env, argv } = splitEnvAssignments(splitCommand(line));
  const script = depth < MAX_SCRIPT_DEPTH ? readPackageScript(dir, argv) : undefined;
  const runner =
    script !== undefined
      ? runnerForScript(script, `${evidence}: package.json script "${script}"`, dir, depth + 1)
      : runnerForCommand(argv, evidence, dir);
  return withCommandEnv(runner, env);
}

/**
 * A script of `&&` steps (`xo && ava && tsd`, `npm run test:vi && npm run lint`): the first
 * step that runs a known test runner; with none, the last step. Lint, build and type-check
 * steps are the project's business, not the test run's.
 */
function runnerForScript(script: string, evidence: string, dir: string, depth: number): TestRunner {
  const steps = scriptSteps(script);
  for (const step of steps.slice(0, -1)) {
    let runner: TestRunner;
    try {
      runner = runnerForLine(step, evidence, dir, depth);
    } catch {
      continue; // a step we cannot read (shell syntax, a missing script) is not the test step
    }
    if (runner.name !== "custom") return runner;
  }
  return runnerForLine(steps.at(-1) ?? script, evidence, dir, depth);
}

/** The command's own assignments (`PYTHONPATH=src`) under whatever the runner adds (our plugin joins PYTHONPATH, not replaces it). */
function withCommandEnv(runner: TestRunner, commandEnv: Record<string, string>): TestRunner {
  if (Object.keys(commandEnv).length === 0) return runner;
  const prepare = runner.prepareEnv;
  return {
    ...runner,
    commandEnv,
    prepareEnv: (env, options) => (prepare ? prepare({ ...env, ...commandEnv }, options) : { ...env, ...commandEnv }),
  };
}

function runnerForCommand(given: string[], evidence: string, dir: string): TestRunner {
  // `npx mocha …`, `pnpm vitest run`, `yarn exec jest`: the program is the one the package
  // manager runs (from node_modules/.bin, on PATH for the run).
  const argv =
    given[0] === "npx"
      ? afterOptions(given.slice(1))
      : given[0] === "pnpm" || given[0] === "yarn"
        ? given.slice(given[1] === "exec" ? 2 : 1)
        : given;
  const joined = argv.join(" ");
  const program = (argv[0] ?? "").split("/").at(-1) ?? "";
  const rest = argv.slice(1);
  if (/\bpytest\b/.test(joined)) {
    const extra = argv.slice(argv.findIndex((a) => /pytest$/.test(a)) + 1);
    return pytestRunner(extra, evidence);
  }
  const unittest = unittestArgs(argv);
  if (unittest) return unittestRunner(unittest, evidence);
  // Coverage wrappers (`nyc tape …`, `c8 --reporter=text mocha …`): the runner they wrap, its results per test.
  if (program === "nyc" || program === "c8") {
    const at = rest.findIndex((a) => WRAPPED.has(a.split("/").at(-1) ?? a));
    if (at >= 0) return runnerForCommand(rest.slice(at), `${evidence} (its ${program} coverage wrapper left out)`, dir);
  }
  if (program === "cross-env") {
    const { env, argv: wrapped } = splitEnvAssignments(rest);
    return withCommandEnv(runnerForCommand(wrapped, evidence, dir), env);
  }
  if (program === "cargo" && rest[0] === "test") return cargoRunner(argv, evidence);
  if (program === "vitest") return vitestRunner(rest, evidence, dir);
  if (program === "jest") return jestRunner(rest, evidence, dir);
  if (program === "mocha" || program === "_mocha") return mochaRunner(rest, evidence, dir);
  if (program === "ava") return avaRunner(rest, evidence, dir);
  if (program === "tape" || program === "tap") return tapRunner(argv, evidence, dir);
  if (program === "node" && argv.includes("--test")) return nodeTestRunner(argv, evidence);
  if (program === "go" && rest[0] === "test") return goRunner(rest.slice(1), evidence);
  // Anything else (make test, tox -e py, a script): run it as given, results from its TAP output if it prints any, else its exit code.
  const bin = join(dir, "node_modules", ".bin");
  return {
    name: "custom",
    evidence,
    reportFormat: "none",
    pathPrefix: [bin],
    parseConsole: parseAnyTap,
    selectsByFiltering: true,
    command: () => argv,
  };
}

/** Programs a coverage wrapper runs whose results we read per test. */
const WRAPPED = new Set([
  "mocha",
  "_mocha",
  "tape",
  "tap",
  "ava",
  "jest",
  "vitest",
  "node",
  "python",
  "python3",
  "pytest",
]);

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
    commandArgs: extra,
    parseConsole: parsePytestConsole,
    // Our plugin's per-test limit (CPU time, and wall-clock time for a test that blocks); a tighter one already in the environment (eval's) is kept.
    prepareEnv: (env, options) => withPytestPlugin(env, pythonPerTestEnv(env, options)),
    command: (selection: TestSelection, reportPath: string) => [
      pythonExecutable(),
      "-m",
      "pytest",
      ...pytestOwnArgs(extra, selection.kind === "tests"),
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

/** pytest options whose value is the next argument (a value that looks like a path is not a path to run). */
const PYTEST_VALUE_OPTIONS = new Set([
  "-k",
  "-m",
  "-p",
  "-c",
  "-o",
  "-W",
  "-n",
  "--ignore",
  "--ignore-glob",
  "--deselect",
  "--rootdir",
  "--basetemp",
  "--confcutdir",
  "--cov",
  "--cov-report",
  "--cov-config",
  "--tb",
  "--maxfail",
  "--durations",
  "--import-mode",
  "--log-level",
  "--doctest-glob",
  "--override-ini",
]);

/** The command's options without the files and folders it names: a selection names its own tests (the file named too would run whole). */
function withoutPaths(extra: readonly string[]): string[] {
  return extra.filter((arg, i) => arg.startsWith("-") || PYTEST_VALUE_OPTIONS.has(extra[i - 1] ?? ""));
}

/** The command's own pytest arguments in a run we build: without its paths when we name the tests, never its report file. */
export function pytestOwnArgs(extra: readonly string[], selecting: boolean): string[] {
  return (selecting ? withoutPaths(extra) : extra).filter((a) => !a.startsWith("--junitxml"));
}

function nodeTestRunner(argv: string[], evidence: string): TestRunner {
  return {
    name: "node-test",
    evidence,
    reportFormat: "junit",
    pathPrefix: [],
    // A synchronous loop blocks --test-timeout: our watchdog, preloaded into each test file's process, stops it.
    prepareEnv: (env, options) => ({
      ...env,
      ...(options?.perTestMs !== undefined ? watchdogEnv(options.perTestMs, options.perTestWallMs) : {}),
    }),
    // The pattern names a test by its own name: a test of that name in another suite runs too,
    // and node reports every test the pattern left out as skipped.
    selectsByFiltering: true,
    command: (selection, reportPath, options) => {
      const [node, ...rest] = argv;
      const pattern =
        selection.kind === "tests"
          ? [
              `--test-name-pattern=^(${safeIds(selection.ids)
                .map((id) => escapeRegExp(id.split(" > ").at(-1) ?? id))
                .join("|")})$`,
            ]
          : [];
      // Stops a test that waits forever (wall-clock time); a synchronous loop blocks it, and our watchdog (prepareEnv) stops that by its CPU time.
      const timeout =
        options?.perTestMs !== undefined
          ? [`--test-timeout=${String(Math.ceil(options.perTestWallMs ?? WALL_FACTOR * options.perTestMs))}`]
          : [];
      const watchdog = options?.perTestMs !== undefined ? watchdogArgs() : [];
      return [
        node ?? "node",
        ...watchdog,
        "--test-reporter=tap",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        `--test-reporter-destination=${reportPath}`,
        ...timeout,
        ...pattern,
        ...rest,
      ];
    },
    parseConsole: parseTap,
  };
}

/**
 * `go test` with the command's own flags and packages (`./...` when it names none), `-v` for
 * per-test lines. A subtest is selected through its top-level test (go's -run splits its
 * pattern at every `/`), the other subtests filtered out.
 */
function goRunner(args: readonly string[], evidence: string): TestRunner {
  const own = args.filter((a) => a !== "-v" && a !== "-json");
  const packages = own.some((a) => !a.startsWith("-")) ? [] : ["./..."];
  return {
    name: "go",
    evidence,
    reportFormat: "none",
    pathPrefix: [],
    selectsByFiltering: true,
    parseConsole: parseGoTest,
    command: (selection) => {
      const tops =
        selection.kind === "tests" ? [...new Set(safeIds(selection.ids).map((id) => id.split("/")[0] ?? id))] : [];
      return [
        "go",
        "test",
        "-v",
        ...(tops.length > 0 ? ["-run", `^(${tops.map(escapeRegExp).join("|")})$`] : []),
        ...own,
        ...packages,
      ];
    },
  };
}

function simpleRunner(
  name: "maven" | "gradle",
  base: string[],
  evidence: string,
  select: (ids: string[]) => string[],
): TestRunner {
  return {
    name,
    evidence,
    reportFormat: "none",
    pathPrefix: [],
    command: (selection) => [...base, ...(selection.kind === "tests" ? select(safeIds(selection.ids)) : [])],
  };
}
