// The model-free `template` strategy: spectrum-based fault localisation (Ochiai over
// per-test line coverage), then repair templates at the most suspicious lines, tried in
// order of suspiciousness × template prior, each validated on the failing tests first,
// then on all visible tests, then the regression gate. Stops at the first plausible fix.
import { cp, lstat, mkdtemp, rm, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { editableRepoFile, readRepoFile, UnsafePathError, writeRepoFile } from "../../workspace/safe-path.ts";
import { unifiedDiff } from "../../workspace/unified-diff.ts";
import { brokenRunReason } from "../../verify/load-failure.ts";
import type { RunTimeLimit } from "../../verify/local-verifier.ts";
import { CandidateLimits, candidateTimedOut } from "../candidate-limits.ts";
import { allPassed, failingTests, type TestReport } from "../../verify/test-report.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { checkDiffLanded } from "../check-diff-landed.ts";
import { emptyOutcome, evidenceOf, type Attempt, type Outcome, type Strategy, type Task, type TestEvidence } from "../task.ts";
import { applyMutation, type Mutation } from "./mutation.ts";
import { ochiai, type SuspiciousLine } from "./ochiai.ts";
import { jsMutations } from "./js-mutations.ts";
import { jsSpectra } from "./js-spectra.ts";
import { pythonMutations } from "./python-mutations.ts";
import { CoverageError, pythonSpectra } from "./python-spectra.ts";
import type { Spectra } from "./reported-files.ts";
import { grammarForFile } from "./tree-sitter.ts";
import { registerLinkedDirectory } from "../../verify/sandbox/sandbox-layout.ts";

const MAX_LINES = 40;
const JS_RUNNERS = new Set(["node-test", "vitest", "jest", "mocha"]);

type Ranked = { mutation: Mutation; score: number; order: number };

export const templateStrategy: Strategy = {
  name: "template",
  async run(task: Task): Promise<Outcome> {
    const started = performance.now();
    const state = new RunState(task, started);
    const language = task.runnerName === "pytest" ? "python" : JS_RUNNERS.has(task.runnerName) ? "javascript" : undefined;
    if (!language) {
      return state.finish("unsupported", `the template strategy localises faults with per-test line coverage, implemented for pytest and Node test runners (node --test, vitest, jest, mocha); this repository runs ${task.runnerName}`);
    }
    if (task.visible.kind === "reproduce") return state.finish("unsupported", "the template strategy repairs failing tests and cannot write a reproduction test from the description: name a failing test, or configure an LLM endpoint");
    task.onProgress?.({ kind: "stage", stage: "reproduce", detail: "running the visible tests on the unchanged code" });
    const before = await state.test(task.visible);
    state.outcome.evidence.before = evidenceOf(before);
    if (before.tests.length === 0) {
      const why = before.run.limit ? before.run.limit.message : `exit ${String(before.run.exitCode)}${before.run.spawnError ? `: ${before.run.spawnError}` : ""}`;
      return state.finish("error", `the visible tests did not run (${why}); output ends with: ${before.run.output.slice(-400)}`);
    }
    const broken = brokenRunReason(before, task.workspace);
    if (broken) return state.finish("broken-tests", `the test command is broken: ${broken}`);
    const failing = failingTests(before);
    if (failing.length === 0) return state.finish("nothing-to-fix", "every visible test already passes; there is nothing to repair");
    const regressionBaseline = task.regression ? await state.test(task.regression) : undefined;
    if (regressionBaseline) state.outcome.evidence.regressionBefore = evidenceOf(regressionBaseline);
    // Candidate runs are limited by the unchanged code's own timings from here on.
    state.limits.learn(before);
    if (regressionBaseline) state.limits.learn(regressionBaseline);

    task.onProgress?.({ kind: "stage", stage: "localise", detail: `${failing.length} failing of ${before.tests.length} visible tests` });
    let ranking: SuspiciousLine[];
    // Files the coverage run named that are not editable worktree files (forged, outside, symbolic links).
    let dropped: string[];
    try {
      // Passing tests are what tell lines apart: trace the regression suite when there is one.
      const known = [...new Set([...before.tests, ...(regressionBaseline?.tests ?? [])].filter((t) => t.status !== "skip").map((t) => t.id))];
      let spectra: Spectra;
      if (language === "python") {
        spectra = await pythonSpectra(task.workspace, task.regression?.kind === "all" ? [] : known, { ...task.sandbox });
        state.outcome.cost.testRuns += 1;
      } else {
        // V8 coverage is per process: one run per test.
        spectra = await jsSpectra(task.workspace, task.probe ?? task.verifier, known);
        state.outcome.cost.testRuns += known.length;
      }
      ranking = ochiai(spectra.spectra, (file) => !task.isTestFile(file));
      dropped = spectra.dropped;
    } catch (error) {
      if (error instanceof CoverageError) return state.finish("error", error.message);
      throw error;
    }
    const droppedNote = dropped.length > 0 ? `; ${droppedText(dropped)}` : "";
    if (dropped.length > 0) task.onProgress?.({ kind: "stage", stage: "localise", detail: droppedText(dropped) });
    state.outcome.plan.localisation = ranking.slice(0, 10);
    if (ranking.length === 0) return state.finish("exhausted", `no line outside the tests is executed by a failing test; nothing to localise${droppedNote}`);

    const candidates = await rankCandidates(task.workspace, ranking.slice(0, MAX_LINES));
    state.outcome.cost.candidatesGenerated = candidates.length;
    task.onProgress?.({ kind: "stage", stage: "repair", detail: `${candidates.length} candidate edits at ${Math.min(ranking.length, MAX_LINES)} suspicious lines` });

    const failingIds: TestSelection = { kind: "tests", ids: failing.map((t) => t.id) };
    // Every original is read before any slot is written. Slot 0 is the workspace itself: a
    // read racing a candidate's write there took that candidate's edit for the original (on
    // a busy machine), and every later candidate was built on it and restored to it.
    const originals = new Map<string, string>();
    const deadline = started + task.budget.minutes * 60_000;
    // Independent candidates are validated in parallel: slot 0 is the workspace, the others scratch copies.
    const slots = [task.workspace, ...(await scratchCopies(task.workspace, Math.max(1, task.parallelism ?? 1) - 1))];
    try {
      for (const { mutation } of candidates) if (!originals.has(mutation.file)) originals.set(mutation.file, await readRepoFile(task.workspace, mutation.file));
      for (let start = 0; start < candidates.length; start += slots.length) {
        if (task.signal?.aborted) return state.finish("cancelled", "stopped on request");
        if (start >= task.budget.candidates || performance.now() > deadline) {
          return state.finish("budget", `budget spent after ${start} of ${candidates.length} candidates (limit ${task.budget.candidates} candidates, ${task.budget.minutes} minutes)`);
        }
        const batch = candidates.slice(start, Math.min(start + slots.length, task.budget.candidates));
        const results = await Promise.all(
          batch.map(async ({ mutation, score }, j) => {
            const slot = slots[j] as string;
            const original = originals.get(mutation.file);
            if (original === undefined) throw new Error(`no original text read for ${mutation.file}`);
            const mutated = applyMutation(original, mutation);
            // A slot is a copy of the worktree the tests have run in: checked like the worktree itself.
            await writeRepoFile(slot, mutation.file, mutated);
            try {
              return { mutation, score, original, mutated, attempt: await state.validate(start + j, mutation, score, failingIds, regressionBaseline, slot) };
            } finally {
              await writeRepoFile(slot, mutation.file, original);
            }
          }),
        );
        // Reported in candidate order, whichever slot finished first.
        for (const { mutation, attempt } of results) {
          task.onProgress?.({ kind: "attempt", index: attempt.index, total: state.outcome.cost.candidatesGenerated, description: `${mutation.description} (${mutation.file}:${mutation.line})`, passed: attempt.passed, failed: attempt.failed, limit: attempt.limit });
        }
        // The best-ranked passing candidate of the batch wins, as it would have one at a time.
        for (const { mutation, score, original, mutated, attempt } of results) {
          if (attempt.result !== "plausible" && attempt.passed > (state.outcome.closestAttempt?.passed ?? 0)) {
            state.outcome.closestAttempt = { diff: unifiedDiff(mutation.file, original, mutated), files: [mutation.file], passed: attempt.passed, failed: attempt.failed };
          }
          if (attempt.result !== "plausible") continue;
          await writeRepoFile(task.workspace, mutation.file, mutated);
          state.outcome.diff = unifiedDiff(mutation.file, original, mutated);
          state.outcome.changedFiles = [mutation.file];
          state.outcome.plan.fix = { family: mutation.family, description: mutation.description, file: mutation.file, line: mutation.line, score };
          state.outcome.status = "fixed";
          state.outcome.closestAttempt = undefined;
          Object.assign(state.outcome.evidence, state.evidence.get(attempt.index - 1));
          const outcome = state.finish("solved", `${mutation.description} at ${mutation.file}:${mutation.line} makes every visible test pass${droppedNote}`);
          await checkDiffLanded(task.workspace, outcome);
          return outcome;
        }
      }
    } catch (error) {
      // A test run can replace a file it was given with a link; the write is refused, and the run ends saying so.
      if (!(error instanceof UnsafePathError)) throw error;
      return state.finish("error", `stopped before writing a file that is no longer safe to edit: ${error.message}`);
    } finally {
      for (const copy of slots.slice(1)) await rm(copy, { recursive: true, force: true });
    }
    return state.finish("exhausted", `none of the ${candidates.length} template edits at the ${Math.min(ranking.length, MAX_LINES)} most suspicious lines makes the visible tests pass${droppedNote}`);
  },
};

export async function rankCandidates(workspace: string, lines: SuspiciousLine[]): Promise<Ranked[]> {
  const byFile = new Map<string, Map<number, number>>();
  for (const l of lines) {
    const scores = byFile.get(l.file) ?? new Map<number, number>();
    scores.set(l.line, l.score);
    byFile.set(l.file, scores);
  }
  const ranked: Ranked[] = [];
  for (const [file, scores] of byFile) {
    const grammar = grammarForFile(file);
    if (!grammar || !isEditable(workspace, file)) continue;
    const source = await readRepoFile(workspace, file);
    const lines = new Set(scores.keys());
    const mutations = grammar === "python" ? await pythonMutations(file, source, lines) : await jsMutations(file, source, lines, grammar);
    for (const mutation of mutations) {
      ranked.push({ mutation, score: (scores.get(mutation.line) ?? 0) * mutation.prior, order: ranked.length });
    }
  }
  return ranked.sort((a, b) => b.score - a.score || a.order - b.order);
}

/** A ranked file the strategy would edit must be a regular worktree file: a symbolic link is skipped, never edited through. */
function isEditable(workspace: string, file: string): boolean {
  try {
    editableRepoFile(workspace, file);
    return true;
  } catch (error) {
    if (error instanceof UnsafePathError) return false;
    throw error;
  }
}

function droppedText(dropped: string[]): string {
  const shown = dropped.slice(0, 3).map((f) => JSON.stringify(f)).join(", ");
  return `ignored ${dropped.length} file(s) the coverage run named that are outside the worktree, symbolic links or not regular files (${shown}${dropped.length > 3 ? ", …" : ""})`;
}

type CandidateEvidence = { after: TestEvidence; regressionAfter?: TestEvidence | undefined };

class RunState {
  readonly outcome: Outcome;
  /** The visible and regression runs of each candidate that passed the failing tests, by index. */
  readonly evidence = new Map<number, CandidateEvidence>();
  /** Time limits for candidate runs, from the unchanged code's runs; none before those. */
  readonly limits: CandidateLimits;
  private readonly task: Task;
  private readonly started: number;

  constructor(task: Task, started: number) {
    this.task = task;
    this.started = started;
    this.outcome = emptyOutcome("template");
    this.limits = new CandidateLimits(task.candidateLimit, task.sandbox.timeoutMs);
  }

  async test(selection: TestSelection, workspace = this.task.workspace, limit?: RunTimeLimit): Promise<TestReport> {
    const report = await this.task.verifier.run(workspace, selection, undefined, limit);
    this.outcome.cost.testRuns += 1;
    this.outcome.cost.testSeconds += report.run.durationMs / 1000;
    return report;
  }

  async validate(index: number, mutation: Mutation, score: number, failingIds: TestSelection, baseline: TestReport | undefined, workspace: string): Promise<Attempt> {
    this.outcome.cost.candidatesTried += 1;
    const record = (result: Attempt["result"], report: TestReport): Attempt => {
      const failed = failingTests(report).length;
      // A candidate stopped by its time limit (a loop it made endless) failed; the job goes on.
      const timedOut = result === "plausible" ? undefined : candidateTimedOut(report);
      const attempt: Attempt = { index: index + 1, description: mutation.description, family: mutation.family, file: mutation.file, line: mutation.line, score, result: timedOut ? "timed-out" : result, passed: report.tests.length - failed, failed, ...(timedOut ? { limit: timedOut } : {}) };
      this.outcome.attempts.push(attempt);
      return attempt;
    };
    const first = await this.test(failingIds, workspace, this.limits.limitFor(failingIds));
    if (!allPassed(first)) return record("still-failing", first);
    const visibleSelection = this.task.visible.kind === "reproduce" ? failingIds : this.task.visible;
    const visible = await this.test(visibleSelection, workspace, this.limits.limitFor(visibleSelection));
    if (!allPassed(visible)) return record("visible-regressed", visible);
    // Kept per candidate: with parallel slots, another candidate may finish after the winner.
    const evidence: CandidateEvidence = { after: evidenceOf(visible) };
    this.evidence.set(index, evidence);
    if (this.task.regression && baseline) {
      const regression = await this.test(this.task.regression, workspace, this.limits.limitFor(this.task.regression));
      evidence.regressionAfter = evidenceOf(regression);
      const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
      const broken = failingTests(regression).filter((t) => passedBefore.has(t.id));
      // A run stopped by its time limit reported only the tests that ended before the stop.
      if (broken.length > 0 || (regression.tests.length === 0 && baseline.tests.length > 0) || candidateTimedOut(regression)) return record("regression-failed", regression);
    }
    return record("plausible", visible);
  }

  finish(reason: Outcome["stopReason"], message: string): Outcome {
    this.outcome.attempts.sort((a, b) => a.index - b.index);
    this.outcome.stopReason = reason;
    this.outcome.message = message;
    this.outcome.cost.wallSeconds = (performance.now() - this.started) / 1000;
    this.outcome.cost.testSeconds = Math.round(this.outcome.cost.testSeconds * 1000) / 1000;
    return this.outcome;
  }
}

/** Copies of the workspace for parallel validation (no .git; node_modules linked, not copied). */
async function scratchCopies(workspace: string, count: number): Promise<string[]> {
  const copies: string[] = [];
  for (let i = 0; i < count; i++) {
    const dir = await mkdtemp(join(tmpdir(), "autogen-slot-"));
    // A worktree's `.git` is a small file naming its git dir: keep it, so a copy is still a
    // checkout of the same commit (the Actions verifier commits from it); a `.git` directory is not copied.
    const gitFile = (await lstat(join(workspace, ".git")).catch(() => undefined))?.isFile() ?? false;
    await cp(workspace, dir, { recursive: true, filter: (src) => !(gitFile ? /(^|\/)node_modules(\/|$)/ : /(^|\/)(\.git|node_modules)(\/|$)/).test(src.slice(workspace.length)) });
    if (existsSync(join(workspace, "node_modules"))) {
      await symlink(join(workspace, "node_modules"), join(dir, "node_modules"));
      // The sandbox shows the original read-only to runs in the copy (it hides the rest of the host's tmp).
      registerLinkedDirectory(join(workspace, "node_modules"));
    }
    copies.push(dir);
  }
  return copies;
}
