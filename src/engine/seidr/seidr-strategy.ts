// SEIDR (techniques.md §3): Synthesize N drafts with a temperature rising from 0 to 1,
// Execute each on the visible tests (score: the fraction passed), Instruct each of the
// best W with its first failing test (a fixed template, or a model-written bug summary),
// Debug: N repairs per candidate, Rank: keep the best W; until one passes the visible
// tests and the regression gate, or the candidate budget is spent. EPG is the number of
// candidates generated before the first passing one.
import type { LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { failingTests, type TestReport } from "../../verify/test-report.ts";
import type { Edit } from "../../workspace/apply-edits.ts";
import { searchEditCode, searchEditOptions } from "../context/search-edit-code.ts";
import { analysisSchema, editsSchema } from "../lpw/schemas.ts";
import { scaleSearch, selectBeam, temperatureSchedule } from "../search/beam.ts";
import { SearchRun, type Executed } from "../search/search-run.ts";
import type { ScoredCandidate, SearchSummary, Strategy } from "../task.ts";

export type SeidrOptions = {
  llm: LlmClient;
  arity?: number;
  width?: number;
  maxGenerations?: number;
  instructions?: "template" | "llm";
};

type Candidate = { id: number; edits: Edit[]; report: TestReport; score: number; executed: Executed; parent?: number };

const scored = (c: Candidate): ScoredCandidate => ({
  id: c.id,
  score: Math.round(c.score * 1000) / 1000,
  ...(c.parent === undefined ? {} : { parent: c.parent }),
});

export function seidrStrategy(options: SeidrOptions): Strategy {
  return {
    name: "seidr",
    run: (task) => {
      const run = new SearchRun(task, options.llm, "seidr");
      const { arity, width } = scaleSearch(task.budget.candidates, options.arity ?? 10, options.width ?? 10);
      return run.search(async ({ before, failing, context, problem }) => {
        const edit = searchEditOptions(task, run.changes, context, problem);
        const search: Extract<SearchSummary, { kind: "seidr" }> = { kind: "seidr", drafts: [], generations: [] };
        run.outcome.plan.search = search;
        const execute = async (edits: Edit[], description: string, parent?: number): Promise<Candidate | undefined> => {
          const result = await run.execute(edits, description);
          return (
            result && {
              id: result.attempt.index,
              edits,
              report: result.report,
              score: result.report.tests.length ? result.passed / result.report.tests.length : 0,
              executed: result,
              ...(parent === undefined ? {} : { parent }),
            }
          );
        };
        // Synthesize: N drafts across the temperature schedule.
        let population: Candidate[] = [];
        for (const temperature of temperatureSchedule(arity)) {
          run.ensureCandidateBudget();
          await run.changes.restore();
          const { value } = await options.llm.call(
            "generate",
            { untrusted: { problem, failures: digestReport(before), code: await searchEditCode(edit, [], failing) } },
            editsSchema,
            { temperature },
          );
          const candidate = await execute(run.editsOf(value), `draft at temperature ${temperature}`);
          if (candidate) search.drafts.push(scored(candidate));
          if (candidate && run.acceptIf(candidate.executed))
            return run.finish(
              "solved",
              `draft ${candidate.id} passes the visible tests and the regression gate (EPG ${candidate.id - 1})`,
            );
          if (candidate) population.push(candidate);
        }
        for (let generation = 1; generation <= (options.maxGenerations ?? 10); generation++) {
          const beam = selectBeam(population, (c) => c.score, width);
          if (beam.length === 0) break;
          const children: Candidate[] = [];
          const step = {
            generation,
            repaired: beam.map(scored),
            replaced: population.filter((c) => !beam.includes(c)).map(scored),
            children: [] as ScoredCandidate[],
          };
          search.generations.push(step);
          for (const parent of beam) {
            const first = failingTests(parent.report)[0];
            const instruction =
              options.instructions === "llm"
                ? await (async () => {
                    const { value } = await options.llm.call(
                      "analyze-error",
                      {
                        trusted: { verification: "(none: SEIDR has no plan)" },
                        untrusted: { trace: "(none)", test: "", failures: digestReport(parent.report) },
                      },
                      analysisSchema,
                    );
                    return `Bug summary: ${value.divergence}. Suggested fix: ${value.fix}`;
                  })()
                : `Make sure ${first?.id ?? "the failing test"} passes; it fails with: ${(first?.message ?? "an error").split("\n")[0]}`;
            for (const temperature of temperatureSchedule(arity)) {
              run.ensureCandidateBudget();
              await run.changes.restore();
              await run.changes.apply(parent.edits);
              const { value } = await options.llm.call(
                "self-debug",
                {
                  trusted: { instruction },
                  untrusted: {
                    problem,
                    failures: digestReport(parent.report),
                    code: await searchEditCode(edit, [], failingTests(parent.report)),
                  },
                },
                editsSchema,
                { temperature },
              );
              const child = await execute(
                [...parent.edits, ...run.editsOf(value)],
                `repair of candidate ${parent.id} (generation ${generation})`,
                parent.id,
              );
              if (child) step.children.push(scored(child));
              if (child && run.acceptIf(child.executed))
                return run.finish(
                  "solved",
                  `candidate ${child.id} passes the visible tests and the regression gate (EPG ${child.id - 1})`,
                );
              if (child) children.push(child);
            }
          }
          population = children;
        }
        return run.finish(
          "iterations",
          `no passing candidate after ${run.outcome.cost.candidatesGenerated} candidates`,
        );
      });
    },
  };
}
