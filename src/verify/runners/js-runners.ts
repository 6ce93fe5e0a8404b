// The JavaScript runners a project names in its test command, each run with the
// project's own arguments (files, globs, options) and given only what its installed
// version understands: a report option, a name filter.
import { join } from "node:path";
import { parseAnyTap } from "../parsers/parse-any-tap.ts";
import { parseTreeConsole } from "../parsers/parse-tree-console.ts";
import { installedMajor } from "./installed-version.ts";
import { fullTitlePattern, keptArguments } from "./test-titles.ts";
import { safeIds, type TestRunner } from "./test-runner.ts";

const binOf = (dir: string) => join(dir, "node_modules", ".bin");

/** vitest: `run` once (never watch), its arguments kept, a JUnit report beside its console. */
export function vitestRunner(args: readonly string[], evidence: string, dir: string): TestRunner {
  const own = keptArguments(args, {
    withValue: ["--reporter", "--outputFile", "--outputFile.junit"],
    flags: ["--watch", "-w"],
  }).filter((a) => a !== "run" && a !== "watch" && a !== "dev");
  return {
    name: "vitest",
    evidence,
    reportFormat: "junit",
    pathPrefix: [binOf(dir)],
    selectsByFiltering: true,
    parseConsole: (output) => parseTreeConsole(output, "vitest"),
    command: (selection, reportPath, options) => [
      "vitest",
      "run",
      // Under V8 coverage: no type-check pass (tsc over the project in each run; type tests run no code).
      ...(options?.v8Coverage ? own.filter((a) => a !== "--typecheck" && !a.startsWith("--typecheck=")) : own),
      "--reporter=default",
      "--reporter=junit",
      `--outputFile.junit=${reportPath}`,
      ...(selection.kind === "tests" ? ["-t", fullTitlePattern(selection.ids)] : []),
    ],
  };
}

export function jestRunner(args: readonly string[], evidence: string, dir: string): TestRunner {
  const own = keptArguments(args, { withValue: ["--reporters"], flags: ["--watch", "--watchAll", "--coverage"] });
  return {
    name: "jest",
    evidence,
    reportFormat: "none",
    pathPrefix: [binOf(dir)],
    selectsByFiltering: true,
    parseConsole: (output) => parseTreeConsole(output, "jest"),
    // Jest names each test only with --verbose once it runs more than one file (else just `PASS file`).
    command: (selection, _reportPath, options) => [
      "jest",
      "--ci",
      ...(own.includes("--verbose") ? [] : ["--verbose"]),
      ...own,
      // A config's `collectCoverage: true` instruments every file (istanbul): not under V8 coverage.
      ...(options?.v8Coverage ? ["--coverage=false"] : []),
      // Its transform cache (ts-jest, babel) kept across the localiser's runs: else each run compiles every file again.
      ...(options?.cacheDir ? [`--cacheDirectory=${options.cacheDir}`] : []),
      ...(selection.kind === "tests" ? ["-t", fullTitlePattern(selection.ids)] : []),
    ],
  };
}

/**
 * mocha 3 to current: the xunit reporter writes the report; mocha before 6 spells its
 * option `--reporter-options` (6 and later accept both spellings, 4 and 5 reject `--reporter-option`).
 */
export function mochaRunner(args: readonly string[], evidence: string, dir: string): TestRunner {
  const own = keptArguments(args, {
    withValue: ["--reporter", "-R", "--reporter-option", "--reporter-options", "-O"],
    flags: ["--watch", "-w"],
  });
  const major = installedMajor(dir, "mocha");
  const option = major !== undefined && major < 6 ? "--reporter-options" : "--reporter-option";
  return {
    name: "mocha",
    evidence: major === undefined ? evidence : `${evidence} (mocha ${String(major)})`,
    reportFormat: "junit",
    pathPrefix: [binOf(dir)],
    selectsByFiltering: true,
    parseConsole: (output) => parseTreeConsole(output, "mocha"),
    command: (selection, reportPath) => [
      "mocha",
      ...own,
      "--reporter",
      "xunit",
      option,
      `output=${reportPath}`,
      ...(selection.kind === "tests" ? ["--grep", fullTitlePattern(selection.ids)] : []),
    ],
  };
}

/** ava 4 to current: `--tap` for per-test results, `--match` for a title (the file prefix `file › ` dropped); other files' tests of the same title are filtered out. */
export function avaRunner(args: readonly string[], evidence: string, dir: string): TestRunner {
  const own = keptArguments(args, {
    withValue: ["--reporter"],
    flags: ["--tap", "-t", "--verbose", "-v", "--watch", "-w"],
  });
  return {
    name: "ava",
    evidence,
    reportFormat: "none",
    pathPrefix: [binOf(dir)],
    selectsByFiltering: true,
    parseConsole: parseAnyTap,
    command: (selection) => [
      "ava",
      ...own,
      "--tap",
      ...(selection.kind === "tests"
        ? safeIds(selection.ids).flatMap((id) => ["--match", id.split(" › ").at(-1) ?? id])
        : []),
    ],
  };
}

/**
 * tape and any command that prints TAP: run exactly as written, results read from its
 * output. Such runners have no name filter, so a selection runs everything and keeps the selected tests.
 */
export function tapRunner(argv: readonly string[], evidence: string, dir: string): TestRunner {
  return {
    name: "tap",
    evidence,
    reportFormat: "none",
    pathPrefix: [binOf(dir)],
    selectsByFiltering: true,
    parseConsole: parseAnyTap,
    command: () => [...argv],
  };
}
