// bench:runners' localisation figure: the template strategy run as the product runs it on a
// job (buildTask: the whole suite as the regression gate, the buggy code's whole-suite run as
// the job's baseline, the failing tests as the visible ones), timed from its "localise" stage
// (the per-test coverage trace, then Ochiai) to its "repair" stage, where the bench stops it
// before any candidate is tried. A runner the strategy has no per-test coverage for says so.
import { readFileSync } from "node:fs";
import { parseRepoConfigText } from "../../src/config/parse-repo-config.ts";
import { buildTask } from "../../src/engine/build-task.ts";
import type { SuspiciousLine } from "../../src/engine/template/ochiai.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import type { Verifier } from "../../src/verify/local-verifier.ts";
import type { TestRunner } from "../../src/verify/runners/test-runner.ts";
import type { SandboxOptions } from "../../src/verify/sandbox/run-sandboxed.ts";
import { failingTests, type TestReport } from "../../src/verify/test-report.ts";

export type Localisation =
  | { kind: "timed"; seconds: number; load: string; detail: string }
  | { kind: "not-applicable"; reason: string }
  | { kind: "failed"; reason: string };

const loadAverage = () => readFileSync("/proc/loadavg", "utf8").split(" ").slice(0, 3).join(" ");

/** `buggy`: the bot's whole-suite run of the code with the bug injected (at least one failing test). */
export async function localise(
  dir: string,
  runner: TestRunner,
  verifier: Verifier,
  sandbox: Omit<SandboxOptions, "cwd">,
  buggy: TestReport,
  bug?: { file: string; lines: number[] },
): Promise<Localisation> {
  const stop = new AbortController();
  const stages: Array<{ stage: string; at: number; load: string; detail: string }> = [];
  const task = buildTask({
    workspace: dir,
    trigger: { kind: "failing-tests", description: "bench:runners localisation" },
    config: parseRepoConfigText(""),
    runner,
    verifier,
    probe: verifier,
    visible: { kind: "tests", ids: failingTests(buggy).map((t) => t.id) },
    suiteBefore: buggy,
    suiteBaseline: buggy,
    sandbox,
    signal: stop.signal,
    onProgress: (event) => {
      if (event.kind !== "stage") return;
      stages.push({ stage: event.stage, at: performance.now(), load: loadAverage(), detail: event.detail ?? "" });
      // Localisation is done: no candidate is tried (the loop checks the signal before its first batch).
      if (event.stage === "repair") stop.abort();
    },
  });
  const outcome = await templateStrategy.run(task);
  const ended = performance.now();
  const start = stages.find((s) => s.stage === "localise");
  if (!start) {
    return outcome.stopReason === "unsupported"
      ? { kind: "not-applicable", reason: outcome.message }
      : { kind: "failed", reason: `${outcome.stopReason} before localisation: ${outcome.message.slice(0, 300)}` };
  }
  const end = stages.find((s) => s.stage === "repair");
  const top = outcome.plan.localisation[0];
  // A later "localise" stage names files the coverage run reported that were dropped.
  const dropped = stages.filter((s) => s.stage === "localise" && s !== start).map((s) => s.detail);
  const detail = [
    start.detail,
    top ? `top line ${top.file}:${String(top.line)} (${top.score.toFixed(2)})` : "no line ranked",
    ...(bug ? [bugRank(outcome.plan.localisation, bug)] : []),
    `${String(outcome.cost.testRuns)} test runs by the strategy, its baseline's included`,
    ...(end ? [] : [`ended ${outcome.stopReason}: ${outcome.message.slice(0, 200)}`]),
    ...dropped,
  ].join("; ");
  return {
    kind: "timed",
    seconds: ((end?.at ?? ended) - start.at) / 1000,
    load: `${start.load} → ${end?.load ?? loadAverage()}`,
    detail,
  };
}

/** Where the injected bug's line ranks among the lines the strategy keeps (its top 10). */
function bugRank(ranked: readonly SuspiciousLine[], bug: { file: string; lines: number[] }): string {
  const at = ranked.findIndex((l) => l.file === bug.file && bug.lines.includes(l.line));
  const where = `${bug.file}:${bug.lines.join(",")}`;
  const hit = ranked[at];
  return hit
    ? `the bug's line ${where} ranks ${String(at + 1)} of the top ${String(ranked.length)} (${hit.score.toFixed(2)})`
    : `the bug's line ${where} is not in the top ${String(ranked.length)}`;
}
