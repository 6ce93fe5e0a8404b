// Failures that are not a test failing: a test file (or the command's target) that did
// not load or collect. Such a result says nothing about the code under test unless the
// code itself is what failed to import, so the engine must not plan against it.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join, relative } from "node:path";
import type { TestCaseResult, TestReport } from "./test-report.ts";
import { failingTests } from "./test-report.ts";

export type LoadFailure = {
  /** What went wrong, in one line taken from the runner's output. */
  reason: string;
  /** True when the repository's own code is what failed to load (a missing module or a syntax error in a source file): then it is the code's fault. */
  codeFault: boolean;
};

const TEST_PATH =
  /(^|\/)(tests?|__tests__|spec)\/|(^|\/)(test_[^/]*\.py|[^/]*_test\.py|conftest\.py|[^/]*\.(test|spec)\.[cm]?[jt]sx?)$/;

/** How a failing result is a load or collection failure, or undefined for a real test failure. */
export function loadFailureOf(test: TestCaseResult, report: TestReport, workspace: string): LoadFailure | undefined {
  if (test.status !== "fail" && test.status !== "error") return undefined;
  const details = `${test.message ?? ""}\n${test.details ?? ""}`;
  // pytest: a module that did not collect is reported as an error of the module itself.
  if (
    test.message === "collection failure" ||
    /ImportError while importing test module|ERROR collecting|error during collection/.test(details)
  ) {
    return pythonLoadFailure(details, workspace);
  }
  // node --test: a file that failed to load is one "test" named after the file (`test > test` for a folder).
  if (
    test.file &&
    (test.name === test.file ||
      test.id === `${test.file} > test > ${test.file}` ||
      test.id === `${test.file} > ${test.file}`)
  ) {
    return nodeLoadFailure(test.file, report.run.output, workspace);
  }
  return undefined;
}

/** Why a test run cannot be used as evidence about the code at all, or undefined when it can. */
export function brokenRunReason(report: TestReport, workspace: string): string | undefined {
  if (report.run.spawnError) return `the command could not start: ${report.run.spawnError}`;
  if (report.run.timedOut && report.tests.length === 0)
    return `it ${report.run.limit?.message ?? "timed out"} before reporting any test`;
  if (report.tests.length === 0) {
    const tail = report.run.output.trim().split("\n").slice(-3).join(" | ").slice(0, 300);
    return `it ran no test (${report.run.limit ? report.run.limit.message : `exit ${String(report.run.exitCode)}`})${tail ? `: ${tail}` : ""}`;
  }
  const broken = failingTests(report).flatMap((t) => {
    const failure = loadFailureOf(t, report, workspace);
    return failure && !failure.codeFault ? [`${t.id}: ${failure.reason}`] : [];
  });
  if (broken.length === 0) return undefined;
  // A limit the run reached (memory, processes) is often why a file "exited early": say it.
  const limit =
    report.run.limit && report.run.limit.name !== "cancelled"
      ? ` (the run ${report.run.limit.message.replace(/^stopped: /, "was stopped: ")})`
      : "";
  return `${broken.slice(0, 5).join("; ")}${limit}`;
}

/** Why a failing result of a new (reproduction) test shows a broken test rather than the reported bug; undefined when it fails as a test should. */
export function wrongFailureReason(
  test: TestCaseResult,
  report: TestReport,
  workspace: string,
  sourceText: string,
): string | undefined {
  const load = loadFailureOf(test, report, workspace);
  if (load) return `the test file did not load: ${load.reason}`;
  const text = `${test.message ?? ""}\n${test.details ?? ""}`;
  const bad =
    /\b(ImportError|ModuleNotFoundError|SyntaxError|IndentationError)\b[^\n]*|Cannot find module[^\n]*|ERR_MODULE_NOT_FOUND[^\n]*|fixture '[^']+' not found/.exec(
      text,
    );
  if (bad) return `it fails with ${bad[0].trim().slice(0, 200)}, not with the reported bug`;
  // A name the test uses that exists nowhere in the repository's code is the test's own mistake.
  const undefinedName = /name '([\w$]+)' is not defined|\b([\w$]+) is not defined\b/.exec(text);
  const name = undefinedName?.[1] ?? undefinedName?.[2];
  if (name && !new RegExp(`\\b${name.replace(/\$/g, "\\$")}\\b`).test(sourceText))
    return `it uses ${name}, which is defined nowhere in the repository (${(test.message ?? "").split("\n")[0]})`;
  return undefined;
}

function pythonLoadFailure(details: string, workspace: string): LoadFailure {
  const lines = details.split("\n").map((l) => l.replace(/^E\s+/, "").trim());
  const reason =
    lines.findLast((l) => /^\w*(Error|Exception)\b/.test(l)) ?? lines.find(Boolean) ?? "collection failure";
  const missing = /No module named '([\w.]+)'/.exec(reason)?.[1];
  if (missing) {
    // A module of the repository that is gone is the code's fault; a package that is not installed is the environment's.
    const top = missing.split(".")[0] ?? missing;
    return {
      reason,
      codeFault:
        existsSync(join(workspace, top)) ||
        existsSync(join(workspace, `${top}.py`)) ||
        existsSync(join(workspace, "src", top)),
    };
  }
  if (/^(SyntaxError|IndentationError)/.test(reason)) {
    const file =
      [...details.matchAll(/File "([^"]+)", line \d+/g)].at(-1)?.[1] ?? /^([\w./-]+\.py):\d+/m.exec(details)?.[1];
    return {
      reason: file ? `${reason} (${repoRelative(file, workspace)})` : reason,
      codeFault: file ? !TEST_PATH.test(repoRelative(file, workspace)) : false,
    };
  }
  // `cannot import name 'x' from 'pkg'` and errors raised while importing the code: the code's fault.
  return { reason, codeFault: true };
}

function nodeLoadFailure(file: string, output: string, workspace: string): LoadFailure {
  // The runner's output holds the loader's error just before the file's `# Subtest: <file>`.
  const at = output.indexOf(`# Subtest: ${file}\n`);
  const before = (at >= 0 ? output.slice(0, at) : output).split("\n").slice(-40).join("\n");
  const notFound = /Cannot find (?:module|package) '([^']+)'(?: imported from (\S+))?/.exec(before);
  if (notFound) {
    const target = notFound[1] ?? "";
    const full = isAbsolute(target) ? target : target.startsWith(".") ? join(workspace, target) : "";
    const inRepo = full !== "" && !relative(workspace, full).startsWith("..");
    const isDir = inRepo && existsSync(full) && statSync(full).isDirectory();
    const rel = inRepo ? relative(workspace, full) || "." : target;
    const why = isDir
      ? `${rel} is a folder, loaded as a module (the command names a folder where node --test wants files or globs)`
      : `Cannot find module '${rel}'`;
    // A source file of the repository that a test imports and that is missing: the code's fault.
    return { reason: why, codeFault: inRepo && !isDir && !TEST_PATH.test(rel) && rel !== file };
  }
  const syntax = /SyntaxError: [^\n]*/.exec(before);
  if (syntax) {
    const where = /(?:file:\/\/)?(\/[^\s:]+\.[cm]?[jt]sx?):\d+/.exec(before)?.[1];
    const rel = where ? repoRelative(where, workspace) : file;
    return { reason: `${syntax[0].replace(/^#\s*/, "")} (${rel})`, codeFault: !TEST_PATH.test(rel) };
  }
  const error = /^#\s*(\w*Error\b[^\n]*)/m.exec(before)?.[1];
  return {
    reason: error ? `${file} did not load: ${error}` : `${file} did not load or exited early`,
    codeFault: false,
  };
}

function repoRelative(file: string, workspace: string): string {
  const rel = isAbsolute(file) ? relative(workspace, file) : file;
  return rel.replace(/^\.\//, "");
}
