// SLPW (techniques.md §2): k plans sampled; UCB picks which plan to verify next, rewarded
// by the visible tests its verification got right; a revised plan is a new arm that keeps
// its parent's statistics. The first q plans that pass verification and the
// intermediate-value check each become a program; UCB then picks which program to refine,
// rewarded by the visible tests it passes, a refined program inheriting its parent's
// statistics. The first program to pass the visible tests and the regression gate wins.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { allPassed, failingTests, type TestReport } from "../../verify/test-report.ts";
import { EditError, type Edit } from "../../workspace/apply-edits.ts";
import { UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext } from "../context/build-context.ts";
import { analysisSchema, checkSchema, editsSchema, planSchema, verificationSchema, type Verification } from "../lpw/schemas.ts";
import { testSource } from "../lpw/test-source.ts";
import { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import { UcbBandit } from "../search/ucb-bandit.ts";
import { emptyOutcome, evidenceOf, type Outcome, type Strategy, type Task } from "../task.ts";

export type SlpwOptions = { llm: LlmClient; planSamples?: number; verifiedPlans?: number; maxPlanIterations?: number; maxRefinements?: number };

type Plan = { id: string; steps: string[]; verification?: Verification };
type Program = { id: string; plan: Plan; edits: Edit[]; report: TestReport };

class OutOfCandidates extends Error {}

const numbered = (steps: string[]) => steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
const formatVerification = (v: Verification) => v.tests.map((t) => `Test ${t.test}: ${t.steps.map((s) => `after step ${s.step}: ${s.value}`).join("; ")}; derived ${t.derived}, expected ${t.expected}`).join("\n");

export function slpwStrategy(options: SlpwOptions): Strategy {
  return {
    name: "slpw",
    async run(task: Task): Promise<Outcome> {
      const k = options.planSamples ?? 6;
      const q = options.verifiedPlans ?? 3;
      const outcome = emptyOutcome("slpw");
      const started = performance.now();
      const at = { ...options.llm.budget.state };
      const changes = new WorkspaceChanges(task.workspace);
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
        const failing = failingTests(before);
        if (failing.length === 0) return finish(before.tests.length ? "nothing-to-fix" : "error", before.tests.length ? "every visible test already passes" : "the visible tests did not run");
        const baseline = task.regression ? await test(task.regression) : undefined;
        const digest = digestReport(before);
        const context = await buildContext(task.workspace, { query: `${task.description ?? ""}\n${digest}`, mentioned: failing.flatMap((t) => (t.file ? [t.file] : [])), isTestFile: task.isTestFile });
        const problem = task.description ?? "Make the failing tests pass.";
        const tests = (await Promise.all(failing.map(async (t) => `${(await testSource(task.workspace, t.id, t.file)) ?? `# ${t.id}`}\n# fails now with: ${t.message ?? t.status}`))).join("\n\n");
        const code = async () => {
          const parts: string[] = [];
          for (const file of [...new Set([...context.files, ...changes.diff().files])]) parts.push(`--- ${file}\n${await readFile(join(task.workspace, file), "utf8").catch(() => "")}`);
          return parts.join("\n\n");
        };

        // k plan samples, then UCB over which plan to verify next.
        const planBandit = new UcbBandit<string>();
        const plans = new Map<string, Plan>();
        for (let i = 1; i <= k; i++) {
          const { value } = await options.llm.call("plan", { untrusted: { problem, failures: digest, code: context.code }, trusted: { memory: "(none)" } }, planSchema);
          plans.set(`p${i}`, { id: `p${i}`, steps: value.steps });
          planBandit.add(`p${i}`);
        }
        const open = new Set(plans.keys());
        const verified: Plan[] = [];
        for (let round = 0; round < (options.maxPlanIterations ?? 12) && verified.length < q && open.size > 0; round++) {
          const id = planBandit.choose([...open]) as string;
          const plan = plans.get(id) as Plan;
          const { value } = await options.llm.call("verify-plan", { trusted: { plan: numbered(plan.steps) }, untrusted: { tests, code: context.code } }, verificationSchema);
          const right = value.tests.filter((t) => t.matches).length;
          planBandit.reward(id, right);
          plan.verification = value;
          if (right < value.tests.length) {
            if (value.revisedPlan) {
              const child = `${id}.r${round}`;
              plans.set(child, { id: child, steps: value.revisedPlan.steps });
              planBandit.add(child, id);
              open.delete(id);
              open.add(child);
            }
            continue;
          }
          const check = (await options.llm.call("check-verification", { trusted: { plan: numbered(plan.steps), verification: formatVerification(value) } }, checkSchema)).value;
          if (check.ok) {
            verified.push(plan);
            open.delete(id);
          }
        }
        const carried = verified.length > 0 ? verified : [...plans.values()].filter((p) => open.has(p.id)).slice(0, q);
        outcome.plan.steps = carried[0]?.steps;
        outcome.plan.verified = verified.length > 0;
        outcome.plan.verification = carried[0]?.verification?.tests.map((t) => ({ test: t.test, derived: t.derived, expected: t.expected, matches: t.matches }));

        // One program per carried plan; then UCB over which program to refine.
        const programBandit = new UcbBandit<string>();
        const programs = new Map<string, Program>();
        const run = async (id: string, plan: Plan, edits: Edit[], description: string): Promise<Program | undefined> => {
          if (outcome.cost.candidatesGenerated >= task.budget.candidates) throw new OutOfCandidates();
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
          outcome.attempts.push({ index: outcome.attempts.length + 1, description, result: allPassed(report) ? "plausible" : "still-failing", passed: report.tests.length - failed, failed });
          const program = { id, plan, edits, report };
          programs.set(id, program);
          return program;
        };
        const accept = async (program: Program): Promise<boolean> => {
          if (!allPassed(program.report)) return false;
          outcome.evidence.after = evidenceOf(program.report);
          if (baseline && task.regression) {
            const regression = await test(task.regression);
            outcome.evidence.regressionAfter = evidenceOf(regression);
            const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
            if (failingTests(regression).some((t) => passedBefore.has(t.id))) return false;
          }
          const { diff, files } = changes.diff();
          Object.assign(outcome, { status: "fixed", diff, changedFiles: files });
          outcome.plan.steps = program.plan.steps;
          return true;
        };
        for (const plan of carried) {
          await changes.restore();
          const { value } = await options.llm.call("implement", { trusted: { plan: numbered(plan.steps), verification: plan.verification ? formatVerification(plan.verification) : "(not verified)" }, untrusted: { problem, code: await code(), knowledge: "(none)" } }, editsSchema);
          const program = await run(`prog-${plan.id}`, plan, value.edits, `implementation of plan ${plan.id}`);
          if (!program) continue;
          programBandit.add(program.id);
          programBandit.reward(program.id, program.report.tests.length - failingTests(program.report).length);
          if (await accept(program)) return finish("solved", `the program of plan ${plan.id} passes the visible tests and the regression gate`);
        }
        for (let round = 1; round <= (options.maxRefinements ?? 12) && programs.size > 0; round++) {
          const id = programBandit.choose([...programs.keys()].filter((p) => programBandit.has(p))) as string;
          const parent = programs.get(id) as Program;
          await changes.restore();
          await changes.apply(parent.edits);
          const failures = digestReport(parent.report);
          const analysis = (await options.llm.call("analyze-error", { trusted: { verification: parent.plan.verification ? formatVerification(parent.plan.verification) : numbered(parent.plan.steps) }, untrusted: { trace: "(no instrumented run)", failures } }, analysisSchema)).value;
          const { value } = await options.llm.call("refine", { trusted: { plan: numbered(parent.plan.steps), analysis: `${analysis.divergence}\nFix: ${analysis.fix}`, explanation: "(not requested)" }, untrusted: { failures, code: await code() } }, editsSchema);
          const child = await run(`${id}.r${round}`, parent.plan, [...parent.edits, ...value.edits], `refinement of ${id}`);
          if (!child) continue;
          programBandit.add(child.id, id);
          programBandit.reward(child.id, child.report.tests.length - failingTests(child.report).length);
          if (await accept(child)) return finish("solved", `the refined program ${child.id} passes the visible tests and the regression gate`);
        }
        return finish("iterations", "no program passed the visible tests");
      } catch (error) {
        if (error instanceof OutOfCandidates) return finish("budget", `${outcome.cost.candidatesGenerated} candidate(s) generated (the budget)`);
        if (error instanceof BudgetExceededError) return finish("budget", error.message);
        if (error instanceof LlmStageError) return finish("error", `the ${error.stage} stage failed`);
        throw error;
      } finally {
        if (outcome.status !== "fixed") await changes.restore();
      }
    },
  };
}
