// SEIDR (techniques.md §3): Synthesize N drafts with a temperature rising from 0 to 1,
// Execute each on the visible tests (score: the fraction passed), Instruct each of the
// best W with its first failing test (a fixed template, or a model-written bug summary),
// Debug: N repairs per candidate, Rank: keep the best W; until one passes the visible
// tests and the regression gate, or the candidate budget is spent. EPG is the number of
// candidates generated before the first passing one.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { allPassed, failingTests, type TestReport } from "../../verify/test-report.ts";
import { EditError, type Edit } from "../../workspace/apply-edits.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext } from "../context/build-context.ts";
import { analysisSchema, editsSchema } from "../lpw/schemas.ts";
import { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import { scaleSearch, selectBeam, temperatureSchedule } from "../search/beam.ts";
import { emptyOutcome, evidenceOf, type Outcome, type Strategy, type Task } from "../task.ts";

export type SeidrOptions = { llm: LlmClient; arity?: number; width?: number; maxGenerations?: number; instructions?: "template" | "llm" };

type Candidate = { id: number; edits: Edit[]; report: TestReport; score: number };

export function seidrStrategy(options: SeidrOptions): Strategy {
  return {
    name: "seidr",
    async run(task: Task): Promise<Outcome> {
      const outcome = emptyOutcome("seidr");
      const started = performance.now();
      const at = { ...options.llm.budget.state };
      const changes = new WorkspaceChanges(task.workspace);
      const { arity, width } = scaleSearch(task.budget.candidates, options.arity ?? 10, options.width ?? 10);
      const test = async (selection = task.visible): Promise<TestReport> => {
        const report = await task.verifier.run(task.workspace, selection);
        outcome.cost.testRuns += 1;
        outcome.cost.testSeconds += report.run.durationMs / 1000;
        return report;
      };
      const finish = (reason: Outcome["stopReason"], message: string): Outcome => {
        const s = options.llm.budget.state;
        Object.assign(outcome, { stopReason: reason, message });
        Object.assign(outcome.cost, { llmCalls: s.llmCalls - at.llmCalls, promptTokens: s.promptTokens - at.promptTokens, completionTokens: s.completionTokens - at.completionTokens, dollars: s.dollars - at.dollars, llmSeconds: (s.waitMs - at.waitMs) / 1000, wallSeconds: (performance.now() - started) / 1000 });
        return outcome;
      };
      try {
        const before = await test();
        outcome.evidence.before = evidenceOf(before);
        if (failingTests(before).length === 0) return finish(before.tests.length ? "nothing-to-fix" : "error", before.tests.length ? "every visible test already passes" : "the visible tests did not run");
        const baseline = task.regression ? await test(task.regression) : undefined;
        const context = await buildContext(task.workspace, { query: `${task.description ?? ""}\n${digestReport(before)}`, mentioned: failingTests(before).flatMap((t) => (t.file ? [t.file] : [])), isTestFile: task.isTestFile });
        const problem = task.description ?? "Make the failing tests pass.";

        /** Runs a program (edits on the original code); returns it scored, or undefined when its edits do not apply. */
        const execute = async (edits: Edit[], description: string): Promise<Candidate | undefined> => {
          outcome.cost.candidatesGenerated += 1;
          outcome.cost.candidatesTried += 1;
          await changes.restore();
          try {
            await changes.apply(edits);
          } catch (error) {
            if (!(error instanceof EditError || error instanceof UnsafePathError)) throw error;
            outcome.attempts.push({ index: outcome.attempts.length + 1, description: `${description}: the edits did not apply`, result: "edit-failed", passed: 0, failed: 1 });
            return undefined;
          }
          const report = await test();
          const failed = failingTests(report).length;
          const passed = report.tests.length - failed;
          outcome.attempts.push({ index: outcome.attempts.length + 1, description, result: allPassed(report) ? "plausible" : "still-failing", passed, failed });
          return { id: outcome.attempts.length, edits, report, score: report.tests.length ? passed / report.tests.length : 0 };
        };
        /** The visible tests pass: the regression gate decides; a pass keeps the change. */
        const accept = async (candidate: Candidate): Promise<boolean> => {
          if (!allPassed(candidate.report)) return false;
          outcome.evidence.after = evidenceOf(candidate.report);
          if (baseline && task.regression) {
            const regression = await test(task.regression);
            outcome.evidence.regressionAfter = evidenceOf(regression);
            const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
            if (failingTests(regression).some((t) => passedBefore.has(t.id))) return false;
          }
          const { diff, files } = changes.diff();
          Object.assign(outcome, { status: "fixed", diff, changedFiles: files });
          return true;
        };
        const code = async () => {
          const parts: string[] = [];
          for (const file of [...new Set([...context.files, ...changes.diff().files])]) parts.push(`--- ${file}\n${await readFile(join(task.workspace, file), "utf8").catch(() => "")}`);
          return parts.join("\n\n");
        };

        // Synthesize: N drafts across the temperature schedule.
        let population: Candidate[] = [];
        for (const temperature of temperatureSchedule(arity)) {
          await changes.restore();
          const { value } = await options.llm.call("generate", { untrusted: { problem, failures: digestReport(before), code: await code() } }, editsSchema, { temperature });
          const candidate = await execute(value.edits, `draft at temperature ${temperature}`);
          if (candidate && (await accept(candidate))) return finish("solved", `draft ${candidate.id} passes the visible tests and the regression gate (EPG ${candidate.id - 1})`);
          if (candidate) population.push(candidate);
        }
        for (let generation = 1; generation <= (options.maxGenerations ?? 10); generation++) {
          const beam = selectBeam(population, (c) => c.score, width);
          if (beam.length === 0) break;
          const children: Candidate[] = [];
          for (const parent of beam) {
            await changes.restore();
            await changes.apply(parent.edits);
            const first = failingTests(parent.report)[0];
            const instruction =
              options.instructions === "llm"
                ? await (async () => {
                    const { value } = await options.llm.call("analyze-error", { trusted: { verification: "(none: SEIDR has no plan)" }, untrusted: { trace: "(none)", failures: digestReport(parent.report) } }, analysisSchema);
                    return `Bug summary: ${value.divergence}. Suggested fix: ${value.fix}`;
                  })()
                : `Make sure ${first?.id ?? "the failing test"} passes; it fails with: ${(first?.message ?? "an error").split("\n")[0]}`;
            for (const temperature of temperatureSchedule(arity)) {
              if (outcome.cost.candidatesGenerated >= task.budget.candidates) return finish("budget", `${outcome.cost.candidatesGenerated} candidates generated (the budget)`);
              await changes.restore();
              await changes.apply(parent.edits);
              const { value } = await options.llm.call("self-debug", { trusted: { instruction }, untrusted: { problem, failures: digestReport(parent.report), code: await code() } }, editsSchema, { temperature });
              const child = await execute([...parent.edits, ...value.edits], `repair of candidate ${parent.id} (generation ${generation})`);
              if (child && (await accept(child))) return finish("solved", `candidate ${child.id} passes the visible tests and the regression gate (EPG ${child.id - 1})`);
              if (child) children.push(child);
            }
          }
          population = children;
        }
        return finish("iterations", `no passing candidate after ${outcome.cost.candidatesGenerated} candidates`);
      } catch (error) {
        if (error instanceof BudgetExceededError) return finish("budget", error.message);
        if (error instanceof LlmStageError) return finish("error", `the ${error.stage} stage failed`);
        throw error;
      } finally {
        if (outcome.status !== "fixed") await changes.restore();
      }
    },
  };
}
