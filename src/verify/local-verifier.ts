// The `Verifier` port's local backend: runs a selection of a workspace's tests in the
// sandbox and returns a TestReport, from the runner's JUnit file when it wrote one and
// from its console output otherwise.
import { existsSync, statSync } from "node:fs";
import { isAbsolute, join } from "node:path";
import { COVERAGE_PRELOAD } from "./coverage-preload.ts";
import { keepSelected } from "./keep-selected.ts";
import { markTestTimeout } from "./mark-test-timeout.ts";
import { readWatchdogTimeouts } from "./node-test-watchdog.ts";
import { withPerTestLimit } from "./per-test-limit.ts";
import { readJunit } from "./read-junit.ts";
import { RUNNER_CACHE_ENV, type TestRunner } from "./runners/test-runner.ts";
import { runSandboxed } from "./sandbox/run-sandboxed.ts";
import type { TestReport } from "./test-report.ts";
import type { Verifier, VerifierRunOptions } from "./verifier.ts";
import { openWarmPytest } from "./warm/warm-pytest-slot.ts";
import { openWarmZygote } from "./warm/warm-zygote-slot.ts";
import { makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";

// The port lives in verifier.ts; its users name it from here too.
export type { RunTimeLimit, Verifier, VerifierRunOptions } from "./verifier.ts";

export function localVerifier(runner: TestRunner, options: VerifierRunOptions): Verifier {
  const verifier: Verifier = {
    async run(workspace, selection, extraEnv, given) {
      // A per-test limit on every run, the first run of the unchanged code included.
      const limit = withPerTestLimit(given, options.timeoutMs);
      const reportDir = await makeTempDir("autogen-report-");
      const tighter = limit.timeoutMs < options.timeoutMs;
      try {
        const reportPath = join(reportDir, "report.xml");
        const runnerOptions = {
          perTestMs: limit.perTestMs,
          perTestWallMs: limit.perTestWallMs,
          v8Coverage: extraEnv?.NODE_V8_COVERAGE !== undefined,
          cacheDir: extraEnv?.[RUNNER_CACHE_ENV],
        };
        const run = await runSandboxed(runner.command(selection, reportPath, runnerOptions), {
          ...options,
          timeoutMs: tighter ? limit.timeoutMs : options.timeoutMs,
          cwd: workspace,
          env: { ...(runner.prepareEnv ? runner.prepareEnv(options.env, runnerOptions) : options.env), ...extraEnv },
          pathPrefix: [...runner.pathPrefix, ...(options.pathPrefix ?? [])],
          readOnlyPaths: [join(workspace, ".git"), ...(options.protect ?? [])],
          // Our report directory, and directories of ours handed over in extraEnv (a V8 coverage dir).
          writablePaths: [reportDir, ...ownDirectories(extraEnv)],
          ...(runnerOptions.v8Coverage ? { nodePreload: [COVERAGE_PRELOAD] } : {}),
        });
        // The sandbox names test.timeoutMinutes; say which limit it really was.
        if (tighter && run.limit?.name === "wall-time")
          run.limit = {
            name: "wall-time",
            message: `timed out after ${String(Math.round(limit.timeoutMs / 100) / 10)} s (${limit.reason})`,
          };
        const fromReport = runner.reportFormat === "junit" ? await readJunit(reportPath, workspace) : undefined;
        const read: TestReport = fromReport ? { run, tests: fromReport, source: "junit" } : consoleReport(run, runner);
        const report = runner.selectsByFiltering ? keepSelected(read, selection) : read;
        if (runner.name === "node-test") readWatchdogTimeouts(report, workspace);
        if (!run.limit) markTestTimeout(report, limit);
        return report;
      } finally {
        await removeTempDir(reportDir);
      }
    },
  };
  if (options.warm && runner.name === "pytest")
    verifier.openWarm = (workspace) => openWarmPytest(workspace, runner, options, verifier);
  // node --test, and a plain script run by node: a pre-started zygote per slot.
  else if (
    options.warm &&
    (runner.name === "node-test" || (runner.name === "custom" && runner.command({ kind: "all" }, "")[0] === "node"))
  ) {
    verifier.openWarm = (workspace) => openWarmZygote(workspace, runner, options, verifier);
  }
  return verifier;
}

function consoleReport(run: TestReport["run"], runner: TestRunner): TestReport {
  const tests = runner.parseConsole?.(run.output) ?? [];
  return { run, tests, source: tests.length > 0 ? "console" : "none" };
}

function ownDirectories(extraEnv: Record<string, string> | undefined): string[] {
  return Object.values(extraEnv ?? {}).filter(
    (value) => isAbsolute(value) && existsSync(value) && statSync(value).isDirectory(),
  );
}
