// SLPW (techniques.md §2): k plans sampled; UCB picks which plan to verify next, rewarded
// by the visible tests its verification got right; a verification that disagrees revises the
// plan directly (a revised plan is a new arm that keeps its parent's statistics; no separate
// audit of the verification: it added nothing in 12 of 12 measured tasks). The first q plans
// whose verification agrees on every visible test each become a program; UCB then picks which program to refine,
// rewarded by the visible tests it passes, a refined program inheriting its parent's
// statistics. The first program to pass the visible tests and the regression gate wins.
import type { LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { failingTests, type TestReport } from "../../verify/test-report.ts";
import type { Edit } from "../../workspace/apply-edits.ts";
import { analysisSchema, editsSchema, planSchema, verificationSchema, type Verification } from "../lpw/schemas.ts";
import { searchEditCode, searchEditOptions } from "../context/search-edit-code.ts";
import { failingTestsBlock } from "../lpw/failing-tests-block.ts";
import { findingsText } from "../lpw/findings-text.ts";
import { SearchRun, type Executed } from "../search/search-run.ts";
import { distinctPlans } from "./distinct-plans.ts";
import { UcbBandit } from "../search/ucb-bandit.ts";
import type { ProgramScore, SampledPlan, Strategy } from "../task.ts";

export type SlpwOptions = {
  llm: LlmClient;
  planSamples?: number;
  verifiedPlans?: number;
  maxPlanIterations?: number;
  maxRefinements?: number;
};

type Plan = { id: string; parent?: string; steps: string[]; verification?: Verification };
type Program = { id: string; plan: Plan; edits: Edit[]; report: TestReport; executed: Executed };

const numbered = (steps: string[]) => steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
const formatVerification = (v: Verification) =>
  v.tests
    .map(
      (t) =>
        `Test ${t.test}: ${t.steps.map((s) => `after step ${s.step}: ${s.value}`).join("; ")}; derived ${t.derived}, expected ${t.expected}`,
    )
    .join("\n");

const summary = (p: Plan): SampledPlan => ({
  id: p.id,
  ...(p.parent ? { parent: p.parent } : {}),
  steps: p.steps,
  ...(p.verification
    ? { right: p.verification.tests.filter((t) => t.matches).length, of: p.verification.tests.length }
    : {}),
});

export function slpwStrategy(options: SlpwOptions): Strategy {
  return {
    name: "slpw",
    run: (task) => {
      const k = options.planSamples ?? 6;
      const q = options.verifiedPlans ?? 3;
      const run = new SearchRun(task, options.llm, "slpw");
      const outcome = run.outcome;
      return run.search(async ({ failing, context, problem, digest }) => {
        const tests = await failingTestsBlock(task.workspace, failing);
        const edit = searchEditOptions(task, run.changes, context, problem);

        // k plan samples, then UCB over which plan to verify next.
        const planBandit = new UcbBandit<string>();
        const plans = new Map<string, Plan>();
        for (let i = 1; i <= k; i++) {
          const { value } = await options.llm.call(
            "plan",
            {
              untrusted: {
                problem,
                tests: tests || digest,
                failures: tests ? "" : digest,
                code: context.code,
                findings: findingsText(task.findings),
              },
              trusted: { memory: "(none)" },
            },
            planSchema,
            { sample: { index: i, of: k } },
          );
          plans.set(`p${i}`, { id: `p${i}`, steps: value.steps });
          planBandit.add(`p${i}`);
        }
        const open = new Set(plans.keys());
        const verified: Plan[] = [];
        for (
          let round = 0;
          round < (options.maxPlanIterations ?? 12) && verified.length < q && open.size > 0;
          round++
        ) {
          const id = planBandit.choose([...open]) as string;
          const plan = plans.get(id) as Plan;
          const { value } = await options.llm.call(
            "verify-plan",
            {
              trusted: { plan: numbered(plan.steps) },
              untrusted: { problem, tests: tests || digest, code: context.code },
            },
            verificationSchema,
          );
          const right = value.tests.filter((t) => t.matches).length;
          planBandit.reward(id, right);
          plan.verification = value;
          if (right < value.tests.length) {
            if (value.revisedPlan) {
              const child = `${id}.r${round}`;
              plans.set(child, { id: child, parent: id, steps: value.revisedPlan.steps });
              planBandit.add(child, id);
              open.delete(id);
              open.add(child);
            }
            continue;
          }
          verified.push(plan);
          open.delete(id);
        }
        const carried = verified.length > 0 ? verified : [...plans.values()].filter((p) => open.has(p.id)).slice(0, q);
        const samples = [...plans.values()].filter((p) => !p.parent);
        const search = {
          kind: "slpw" as const,
          plans: [...plans.values()].map(summary),
          distinct: distinctPlans(samples.map((p) => p.steps)),
          samples: samples.length,
          implemented: [] as string[],
          chosen: undefined as string | undefined,
          programs: [] as ProgramScore[],
          chosenProgram: undefined as string | undefined,
        };
        outcome.plan.search = search;
        outcome.plan.steps = carried[0]?.steps;
        outcome.plan.verified = verified.length > 0;
        outcome.plan.verification = carried[0]?.verification?.tests.map((t) => ({
          test: t.test,
          derived: t.derived,
          expected: t.expected,
          matches: t.matches,
        }));

        // One program per carried plan; then UCB over which program to refine.
        const programBandit = new UcbBandit<string>();
        const programs = new Map<string, Program>();
        const execute = async (
          id: string,
          plan: Plan,
          edits: Edit[],
          description: string,
          parent?: string,
        ): Promise<Program | undefined> => {
          const result = await run.execute(edits, description);
          if (!result) return undefined;
          const program = { id, plan, edits, report: result.report, executed: result };
          programs.set(id, program);
          const of = result.report.tests.length;
          search.programs.push({
            id,
            plan: plan.id,
            ...(parent ? { parent } : {}),
            passed: of - failingTests(result.report).length,
            of,
          });
          return program;
        };
        const accept = (program: Program): boolean => {
          if (!run.acceptIf(program.executed)) return false;
          outcome.plan.steps = program.plan.steps;
          search.chosen = program.plan.id;
          search.chosenProgram = program.id;
          return true;
        };
        for (const plan of carried) {
          run.ensureCandidateBudget();
          await run.changes.restore();
          search.implemented.push(plan.id);
          const { value } = await options.llm.call(
            "implement",
            {
              trusted: {
                plan: numbered(plan.steps),
                verification: plan.verification ? formatVerification(plan.verification) : "(not verified)",
              },
              untrusted: {
                problem,
                tests: tests || digest,
                code: await searchEditCode(edit, plan.steps, failing),
                knowledge: "(none)",
                hint: "",
              },
            },
            editsSchema,
          );
          const program = await execute(
            `prog-${plan.id}`,
            plan,
            run.editsOf(value),
            `implementation of plan ${plan.id}`,
          );
          if (!program) continue;
          programBandit.add(program.id);
          programBandit.reward(program.id, program.report.tests.length - failingTests(program.report).length);
          if (accept(program))
            return run.finish(
              "solved",
              `the program of plan ${plan.id} passes the visible tests and the regression gate`,
            );
        }
        for (let round = 1; round <= (options.maxRefinements ?? 12) && programs.size > 0; round++) {
          run.ensureCandidateBudget();
          const id = programBandit.choose([...programs.keys()].filter((p) => programBandit.has(p))) as string;
          const parent = programs.get(id) as Program;
          await run.changes.restore();
          await run.changes.apply(parent.edits);
          const failures = digestReport(parent.report);
          // The first failing test's source and its expected and actual values.
          const test = await failingTestsBlock(task.workspace, failingTests(parent.report).slice(0, 1));
          const analysis = (
            await options.llm.call(
              "analyze-error",
              {
                trusted: {
                  verification: parent.plan.verification
                    ? formatVerification(parent.plan.verification)
                    : numbered(parent.plan.steps),
                },
                untrusted: {
                  trace: "(no instrumented run)",
                  test,
                  failures,
                },
              },
              analysisSchema,
            )
          ).value;
          const { value } = await options.llm.call(
            "refine",
            {
              trusted: {
                plan: numbered(parent.plan.steps),
                analysis: `${analysis.divergence}\nFix: ${analysis.fix}`,
                explanation: "(not requested)",
              },
              untrusted: {
                problem,
                failures,
                test,
                code: await searchEditCode(edit, parent.plan.steps, failingTests(parent.report)),
              },
            },
            editsSchema,
          );
          const child = await execute(
            `${id}.r${round}`,
            parent.plan,
            [...parent.edits, ...run.editsOf(value)],
            `refinement of ${id}`,
            id,
          );
          if (!child) continue;
          programBandit.add(child.id, id);
          programBandit.reward(child.id, child.report.tests.length - failingTests(child.report).length);
          if (accept(child))
            return run.finish(
              "solved",
              `the refined program ${child.id} passes the visible tests and the regression gate`,
            );
        }
        return run.finish("iterations", "no program passed the visible tests");
      });
    },
  };
}
