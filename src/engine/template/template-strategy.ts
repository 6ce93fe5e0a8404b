// The model-free `template` strategy: spectrum-based fault localisation (Ochiai over
// per-test line coverage), then repair templates at the most suspicious lines, tried in
// order of suspiciousness × template prior, each validated on the failing tests first,
// then on all visible tests, then the regression gate. Stops at the first plausible fix.
import { cp, lstat, symlink } from "node:fs/promises";
import { existsSync } from "node:fs";
import { join } from "node:path";
import { editableRepoFile, UnsafePathError, writeRepoFile } from "../../workspace/safe-path.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { unifiedDiff } from "../../workspace/unified-diff.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { checkDiffLanded } from "../check-diff-landed.ts";
import { StrategyRun } from "../run/strategy-run.ts";
import type { Outcome, Strategy, Task } from "../task.ts";
import { applyMutation, type Mutation } from "./mutation.ts";
import { ochiai, type PassedAggregate, type SuspiciousLine } from "./ochiai.ts";
import { jsMutations } from "./js-mutations.ts";
import { loopGuardMutations } from "./loop-guard-mutations.ts";
import { jsSpectra } from "./js-spectra.ts";
import { pythonMutations } from "./python-mutations.ts";
import { CoverageError, pythonSpectra } from "./python-spectra.ts";
import type { Spectra } from "./reported-files.ts";
import { grammarForFile } from "./tree-sitter.ts";
import type { LlmClient } from "../../llm/llm-client.ts";
import { modelReviewer, NOT_REVIEWED } from "../review/review-fix.ts";
import { grantDirectory, revokeGrants, shareGrants } from "../../verify/sandbox/workspace-grants.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

const MAX_LINES = 40;
const JS_RUNNERS = new Set(["node-test", "vitest", "jest", "mocha"]);

type Ranked = { mutation: Mutation; score: number; order: number };

/** How many passing candidates the model may refuse before the pass gives up. */
const MAX_REVIEWS = 3;

/** Model-free: a fix it finds "passes the tests; not reviewed". */
export const templateStrategy: Strategy = templateStrategyWith({});

/** `llm`: every candidate that passes the tests ships only if the model, shown the issue and the diff, accepts it. */
export function templateStrategyWith(options: { llm?: LlmClient | undefined }): Strategy {
  return {
    name: "template",
    run(task: Task): Promise<Outcome> {
      const run: StrategyRun = new StrategyRun(task, "template", {
        total: (): number => run.outcome.cost.candidatesGenerated,
        llm: options.llm,
      });
      return run.run(() => repair(task, run, options.llm));
    },
  };
}

async function repair(task: Task, run: StrategyRun, llm: LlmClient | undefined): Promise<Outcome> {
  const outcome = run.outcome;
  const language = task.runnerName === "pytest" ? "python" : JS_RUNNERS.has(task.runnerName) ? "javascript" : undefined;
  if (!language) {
    return run.finish(
      "unsupported",
      `the template strategy localises faults with per-test line coverage, implemented for pytest and Node test runners (node --test, vitest, jest, mocha); this repository runs ${task.runnerName}`,
    );
  }
  if (task.visible.kind === "reproduce")
    return run.finish(
      "unsupported",
      "the template strategy repairs failing tests and cannot write a reproduction test from the description: name a failing test, or configure an LLM endpoint",
    );
  const { before, failing, regression: regressionBaseline } = await run.baseline();

  task.onProgress?.({
    kind: "stage",
    stage: "localise",
    detail: `${failing.length} failing of ${before.tests.length} visible tests`,
  });
  let ranking: SuspiciousLine[];
  // Files the coverage run named that are not editable worktree files (forged, outside, symbolic links).
  let dropped: string[];
  try {
    // Passing tests are what tell lines apart: trace the regression suite when there is one.
    const known = [
      ...new Set(
        [...before.tests, ...(regressionBaseline?.tests ?? [])].filter((t) => t.status !== "skip").map((t) => t.id),
      ),
    ];
    let spectra: Spectra;
    let passed: PassedAggregate | undefined;
    if (language === "python") {
      spectra = await pythonSpectra(task.workspace, task.regression?.kind === "all" ? [] : known, {
        ...task.sandbox,
        commandArgs: task.commandArgs,
        perTestMs: run.tracePerTestMs(),
        failingPerTestMs: run.traceFailingPerTestMs(failing),
        failing: failing.map((t) => t.id),
        durations: new Map(
          [...(regressionBaseline?.tests ?? []), ...before.tests].map((t) => [t.id, t.durationMs] as const),
        ),
      });
      run.countTestRuns(1);
    } else {
      // V8 coverage is per process: the failing tests alone, the passing ones from one run of the suite (js-spectra.ts).
      const failingIds = new Set(failing.map((t) => t.id));
      const passing = [
        ...new Set(
          [...before.tests, ...(regressionBaseline?.tests ?? [])]
            .filter((t) => t.status === "pass" && !failingIds.has(t.id))
            .map((t) => t.id),
        ),
      ];
      const js = await jsSpectra(
        task.workspace,
        task.probe ?? task.verifier,
        [...failingIds],
        task.regression?.kind === "all" ? "all" : passing,
        (selection) => run.candidateLimit(selection),
      );
      spectra = js;
      passed = js.passed;
      run.countTestRuns(js.runs);
      task.onProgress?.({
        kind: "stage",
        stage: "localise",
        detail: `JavaScript coverage: ${js.runs} runs (${js.spectra.length} failing test(s) alone, ${js.passing} passing from one run; ${js.trace.join(", ")})`,
      });
    }
    ranking = ochiai(spectra.spectra, (file) => !task.isTestFile(file), passed);
    dropped = spectra.dropped;
  } catch (error) {
    if (error instanceof CoverageError) return run.finish("error", error.message);
    throw error;
  }
  const droppedNote = dropped.length > 0 ? `; ${droppedText(dropped)}` : "";
  if (dropped.length > 0) task.onProgress?.({ kind: "stage", stage: "localise", detail: droppedText(dropped) });
  outcome.plan.localisation = ranking.slice(0, 10);
  if (ranking.length === 0)
    return run.finish(
      "exhausted",
      `no line outside the tests is executed by a failing test; nothing to localise${droppedNote}`,
    );

  // The unchanged code's failing tests never ended: its loop guards are edited first.
  const looping = before.run.limit?.name === "test-time";
  const candidates = await rankCandidates(task.workspace, ranking.slice(0, MAX_LINES), { looping });
  outcome.cost.candidatesGenerated = candidates.length;
  task.onProgress?.({
    kind: "stage",
    stage: "repair",
    detail: `${candidates.length} candidate edits at ${Math.min(ranking.length, MAX_LINES)} suspicious lines`,
  });

  const failingIds: TestSelection = { kind: "tests", ids: failing.map((t) => t.id) };
  const review = llm
    ? modelReviewer(llm, { workspace: task.workspace, problem: task.description, failing })
    : undefined;
  const refusals: string[] = [];
  // Every original is read before any slot is written. Slot 0 is the workspace itself: a
  // read racing a candidate's write there took that candidate's edit for the original (on
  // a busy machine), and every later candidate was built on it and restored to it.
  const originals = new Map<string, string>();
  const deadline = run.started + task.budget.minutes * 60_000;
  // Independent candidates are validated in parallel: slot 0 is the workspace, the others scratch copies.
  const slots = [task.workspace, ...(await scratchCopies(task.workspace, Math.max(1, task.parallelism ?? 1) - 1))];
  // A warm runner per slot for the failing tests, which every candidate runs first (where the verifier offers one).
  const warm = slots.map((slot) => task.verifier.openWarm?.(slot));
  try {
    // Started on the unchanged code, side by side, before any candidate is written.
    await Promise.all(warm.map((runner) => runner?.prepare(failingIds)));
    for (const { mutation } of candidates)
      if (!originals.has(mutation.file))
        originals.set(mutation.file, await readWorktreeText(task.workspace, mutation.file));
    for (let start = 0; start < candidates.length; start += slots.length) {
      if (task.signal?.aborted) return run.finish("cancelled", "stopped on request");
      if (start >= task.budget.candidates || performance.now() > deadline) {
        return run.finish(
          "budget",
          `budget spent after ${start} of ${candidates.length} candidates (limit ${task.budget.candidates} candidates, ${task.budget.minutes} minutes)`,
        );
      }
      const batch = candidates.slice(start, Math.min(start + slots.length, task.budget.candidates));
      // Their first runs (the failing tests, where no warm runner takes them) go to the verifier together.
      if (warm.every((runner) => runner === undefined)) task.verifier.expectBatch?.(batch.length);
      // Attempts are reported in candidate order by the run, whichever slot finishes first.
      const results = await Promise.all(
        batch.map(async ({ mutation, score }, j) => {
          const slot = slots[j] as string;
          const original = originals.get(mutation.file);
          if (original === undefined) throw new Error(`no original text read for ${mutation.file}`);
          const mutated = applyMutation(original, mutation);
          const change = () => ({ diff: unifiedDiff(mutation.file, original, mutated), files: [mutation.file] });
          // A slot is a copy of the worktree the tests have run in: checked like the worktree itself.
          await writeRepoFile(slot, mutation.file, mutated);
          try {
            const candidate = {
              index: start + j + 1,
              description: mutation.description,
              family: mutation.family,
              file: mutation.file,
              line: mutation.line,
              score,
            };
            const { attempt } = await run.validate(candidate, {
              workspace: slot,
              first: failingIds,
              diff: change,
              warm: warm[j],
            });
            return { mutation, score, mutated, change, attempt };
          } finally {
            await writeRepoFile(slot, mutation.file, original);
          }
        }),
      );
      // The best-ranked passing candidate of the batch wins, as it would have one at a time,
      // unless the model refuses it: then the next passing one is reviewed.
      for (const { mutation, score, mutated, change, attempt } of results.filter(
        (r) => r.attempt.result === "plausible",
      )) {
        if (refusals.length >= MAX_REVIEWS) break;
        const { diff } = change();
        task.onProgress?.({
          kind: "stage",
          stage: "review",
          detail: `${mutation.description} at ${mutation.file}:${mutation.line}`,
        });
        const verdict = review
          ? await review({
              description: mutation.description,
              diff,
              file: mutation.file,
              line: mutation.line,
              edited: mutated,
            })
          : NOT_REVIEWED;
        outcome.review = verdict;
        if (verdict.verdict === "refused") {
          Object.assign(attempt, { result: "refused", reason: verdict.reason });
          refusals.push(`${mutation.description} at ${mutation.file}:${mutation.line}: ${verdict.reason}`);
          continue;
        }
        await writeRepoFile(task.workspace, mutation.file, mutated);
        run.accept(attempt, change());
        outcome.plan.fix = {
          family: mutation.family,
          description: mutation.description,
          file: mutation.file,
          line: mutation.line,
          score,
        };
        const how =
          verdict.verdict === "accepted" ? "; the model reviewed the edit against the issue and accepted it" : "";
        const solved = run.finish(
          "solved",
          `${mutation.description} at ${mutation.file}:${mutation.line} makes every visible test pass${how}${droppedNote}`,
        );
        await checkDiffLanded(task.workspace, solved);
        return solved;
      }
      if (refusals.length >= MAX_REVIEWS) break;
    }
  } catch (error) {
    // A test run can replace a file it was given with a link; the write is refused, and the run ends saying so.
    if (!(error instanceof UnsafePathError)) throw error;
    return run.finish("error", `stopped before writing a file that is no longer safe to edit: ${error.message}`);
  } finally {
    for (const runner of warm) await runner?.close();
    await removeCopies(slots.slice(1));
  }
  if (refusals.length > 0) {
    return run.finish(
      "refused",
      `the model refused ${refusals.length} edit(s) that pass the tests: ${refusals.join("; ")}${droppedNote}`,
    );
  }
  return run.finish(
    "exhausted",
    `none of the ${candidates.length} template edits at the ${Math.min(ranking.length, MAX_LINES)} most suspicious lines makes the visible tests pass${droppedNote}`,
  );
}

export async function rankCandidates(
  workspace: string,
  lines: SuspiciousLine[],
  options: { looping?: boolean } = {},
): Promise<Ranked[]> {
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
    const source = await readWorktreeText(workspace, file);
    const lines = new Set(scores.keys());
    const mutations = [
      ...(grammar === "python"
        ? await pythonMutations(file, source, lines)
        : await jsMutations(file, source, lines, grammar)),
      ...(await loopGuardMutations(grammar, file, source, lines, options)),
    ];
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
  const shown = dropped
    .slice(0, 3)
    .map((f) => JSON.stringify(f))
    .join(", ");
  return `ignored ${dropped.length} file(s) the coverage run named that are outside the worktree, symbolic links or not regular files (${shown}${dropped.length > 3 ? ", …" : ""})`;
}

/** Copies of the workspace for parallel validation (no .git; node_modules linked, not copied). */
async function scratchCopies(workspace: string, count: number): Promise<string[]> {
  const copies: string[] = [];
  try {
    for (let i = 0; i < count; i++) {
      const dir = await makeTempDir("autogen-slot-");
      copies.push(dir);
      // A worktree's `.git` is a small file naming its git dir: keep it, so a copy is still a
      // checkout of the same commit (the Actions verifier commits from it); a `.git` directory is not copied.
      const gitFile = (await lstat(join(workspace, ".git")).catch(() => undefined))?.isFile() ?? false;
      await cp(workspace, dir, {
        recursive: true,
        filter: (src) =>
          !(gitFile ? /(^|\/)node_modules(\/|$)/ : /(^|\/)(\.git|node_modules)(\/|$)/).test(
            src.slice(workspace.length),
          ),
      });
      if (existsSync(join(workspace, "node_modules"))) {
        await symlink(join(workspace, "node_modules"), join(dir, "node_modules"));
        // The sandbox shows the original read-only to runs in the copy (it hides the rest of the host's tmp).
        grantDirectory(dir, join(workspace, "node_modules"));
      }
      // Installed dependencies the bot gave the workspace (a pip target on PYTHONPATH) hold for its copies.
      shareGrants(workspace, dir);
    }
  } catch (error) {
    // A copy that failed halfway (a full disk, a file that vanished) takes the ones made before it along.
    await removeCopies(copies);
    throw error;
  }
  return copies;
}

async function removeCopies(copies: readonly string[]): Promise<void> {
  for (const copy of copies) {
    revokeGrants(copy);
    await removeTempDir(copy);
  }
}
