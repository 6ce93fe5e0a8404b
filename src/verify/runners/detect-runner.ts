// Finds how a repository runs its tests, per ecosystem, or uses the configured command.
// Each runner knows how to select tests and ask for a JUnit report.
import { existsSync, readdirSync } from "node:fs";
import { tryReadWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { join } from "node:path";
import { parseGoTest } from "../parsers/parse-go-test.ts";
import { parsePytestConsole } from "../parsers/parse-pytest-console.ts";
import { parseTap } from "../parsers/parse-tap.ts";
import { parseTreeConsole } from "../parsers/parse-tree-console.ts";
import { PYTEST_PLUGIN, withPytestPlugin } from "./pytest-plugin.ts";
import { pythonExecutable } from "./python-executable.ts";
import { splitCommand } from "./split-command.ts";
import { escapeRegExp, NoTestsDetectedError, safeIds, type TestRunner, type TestSelection } from "./test-runner.ts";

const LOOKED_FOR = [
  "pytest (pytest.ini, pyproject.toml [tool.pytest], setup.cfg/tox.ini [pytest], test_*.py)",
  "package.json scripts.test (vitest, jest, mocha, node --test)",
  "go.mod",
  "Cargo.toml",
  "pom.xml",
  "build.gradle",
];

/** Manifests and runner configs read to detect the runner; a larger one is not read. */
const MANIFEST_READ_LIMIT = 1024 * 1024;

export function detectRunner(dir: string, configured?: string | null): TestRunner {
  if (configured) return runnerForCommand(splitCommand(configured), `test.command "${configured}"`, dir);
  const has = (name: string) => existsSync(join(dir, name));
  const read = (name: string) => (has(name) ? (tryReadWorktreeTextSync(dir, name, { maxBytes: MANIFEST_READ_LIMIT }) ?? "") : "");

  if (has("pytest.ini") || /\[tool\.pytest/.test(read("pyproject.toml")) || /\[(tool:)?pytest\]/.test(read("setup.cfg") + read("tox.ini")) || hasPythonTests(dir)) {
    return pytestRunner([], "pytest configuration or test_*.py files");
  }
  if (has("package.json")) {
    const pkg = JSON.parse(read("package.json")) as { scripts?: Record<string, string> };
    const script = pkg.scripts?.test;
    if (script && !/no test specified/.test(script)) return runnerForCommand(splitCommand(script.split("&&").at(-1)?.trim() ?? script), `package.json scripts.test "${script}"`, dir);
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

function runnerForCommand(argv: string[], evidence: string, dir: string): TestRunner {
  const joined = argv.join(" ");
  const bin = join(dir, "node_modules", ".bin");
  if (/\bpytest\b/.test(joined)) {
    const extra = argv.slice(argv.findIndex((a) => /pytest$/.test(a)) + 1);
    return pytestRunner(extra, evidence);
  }
  if (/\bvitest\b/.test(joined)) return vitestRunner(evidence, bin);
  if (/\bjest\b/.test(joined)) return jestRunner(evidence, bin);
  if (/\bmocha\b/.test(joined)) return mochaRunner(evidence, bin);
  if (argv[0] === "node" && argv.includes("--test")) return nodeTestRunner(argv, evidence);
  if (argv[0] === "go") return goRunner();
  // Anything else: run it as given, results from its exit code and console.
  return { name: "custom", evidence, reportFormat: "none", pathPrefix: [bin], command: () => argv };
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
    command: (selection, reportPath, options) => {
      const [node, ...rest] = argv;
      const pattern = selection.kind === "tests" ? [`--test-name-pattern=^(${safeIds(selection.ids).map((id) => escapeRegExp(id.split(" > ").at(-1) ?? id)).join("|")})$`] : [];
      // Stops a test that waits forever; a synchronous loop blocks it, and the run's own limit stops that.
      const timeout = options?.perTestMs !== undefined ? [`--test-timeout=${String(Math.ceil(options.perTestMs))}`] : [];
      return [node ?? "node", "--test-reporter=tap", "--test-reporter-destination=stdout", "--test-reporter=junit", `--test-reporter-destination=${reportPath}`, ...timeout, ...pattern, ...rest];
    },
    parseConsole: parseTap,
  };
}

function vitestRunner(evidence: string, bin: string): TestRunner {
  return {
    name: "vitest",
    evidence,
    reportFormat: "junit",
    pathPrefix: [bin],
    parseConsole: (output) => parseTreeConsole(output, "vitest"),
    command: (selection, reportPath) => [
      "vitest",
      "run",
      "--reporter=default",
      "--reporter=junit",
      `--outputFile.junit=${reportPath}`,
      ...(selection.kind === "tests" ? ["-t", `^(${safeIds(selection.ids).map((id) => escapeRegExp(id.split(" > ").at(-1) ?? id)).join("|")})$`] : []),
    ],
  };
}

function jestRunner(evidence: string, bin: string): TestRunner {
  return {
    name: "jest",
    evidence,
    reportFormat: "none",
    pathPrefix: [bin],
    parseConsole: (output) => parseTreeConsole(output, "jest"),
    command: (selection) => ["jest", "--ci", ...(selection.kind === "tests" ? ["-t", `^(${safeIds(selection.ids).map((id) => escapeRegExp(id.split(" > ").at(-1) ?? id)).join("|")})$`] : [])],
  };
}

function mochaRunner(evidence: string, bin: string): TestRunner {
  return {
    name: "mocha",
    evidence,
    reportFormat: "junit",
    pathPrefix: [bin],
    parseConsole: (output) => parseTreeConsole(output, "mocha"),
    command: (selection, reportPath) => [
      "mocha",
      "--reporter",
      "xunit",
      "--reporter-option",
      `output=${reportPath}`,
      ...(selection.kind === "tests" ? ["--grep", `^(${safeIds(selection.ids).map(escapeRegExp).join("|")})$`] : []),
    ],
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
