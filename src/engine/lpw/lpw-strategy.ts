// LPW (Planning-Driven Programming, techniques.md §1) on a real repository: plan; verify
// the plan on every visible test (revising it on a mismatch) and check the intermediate
// values; implement as edits; run the visible tests; on failure, an instrumented debug
// run, an error analysis against the plan verification, a code explanation and a
// refinement; then the regression gate. The same failure twice in a row re-implements
// from the plan; three times stops the run.
import { readFileSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { failingTestsBlock } from "./failing-tests-block.ts";
import { brokenRunReason } from "../../verify/load-failure.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { allPassed, failingTests, type TestReport } from "../../verify/test-report.ts";
import { EditError, type Edit } from "../../workspace/apply-edits.ts";
import { safeRepoPath, UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext } from "../context/build-context.ts";
import { emptyOutcome, evidenceOf, visibleSelection, type Attempt, type Outcome, type Strategy, type Task } from "../task.ts";
import { CandidateLimits, candidateTimedOut } from "../candidate-limits.ts";
import { failureSignature } from "./failure-signature.ts";
import { instrumentedRun } from "./instrumented-run.ts";
import { formatKnowledge, onDiskKnowledge, type KnowledgeProvider } from "../knowledge/knowledge-search.ts";
import { analysisSchema, checkSchema, editsSchema, explanationSchema, instrumentSchema, knowledgeSchema, planSchema, verificationSchema, type Verification } from "./schemas.ts";
import { WorkspaceChanges } from "./workspace-changes.ts";

export type LpwOptions = {
  llm: LlmClient;
  maxPlanIterations?: number;
  maxRefinements?: number;
  /** Ablation switches (techniques.md §1: each removes exactly its stage). */
  planVerification?: boolean;
  codeExplanation?: boolean;
  instrumentedDebug?: boolean;
  /** Plans of similar past fixes (RGD memory), offered to the plan stage. */
  memory?: string;
  /** `/autogen plan`: stop after the plan is verified, changing no code. */
  planOnly?: boolean;
  /** SelfEvolve: write down the knowledge the change needs (and look it up: "on-disk" searches the workspace's docs and dependencies) before coding. */
  knowledge?: KnowledgeProvider | "on-disk" | undefined;
};

type Stop = { reason: Outcome["stopReason"]; message: string };
class StopRun extends Error {
  readonly stop: Stop;
  constructor(stop: Stop) {
    super(stop.message);
    this.stop = stop;
  }
}

export function lpwStrategy(options: LpwOptions): Strategy {
  return { name: "lpw", run: (task) => new LpwRun(task, options).run() };
}

class LpwRun {
  private readonly task: Task;
  private readonly options: Required<Omit<LpwOptions, "memory" | "knowledge">> & { memory: string; knowledge: KnowledgeProvider | "on-disk" | undefined };
  private knowledgeText = "(none)";
  private readonly llm: LlmClient;
  private readonly changes: WorkspaceChanges;
  private readonly outcome: Outcome;
  private readonly started = performance.now();
  private readonly budgetAtStart: { calls: number; prompt: number; completion: number; dollars: number; waitMs: number };
  private contextFiles: string[] = [];
  private problem = "";
  private lastSignature = "";
  private repeats = 0;
  /** Candidate runs' time limits, learnt from the unchanged code's runs. */
  private readonly limits: CandidateLimits;

  constructor(task: Task, options: LpwOptions) {
    this.task = task;
    this.llm = options.llm;
    this.options = {
      llm: options.llm,
      maxPlanIterations: options.maxPlanIterations ?? 12,
      maxRefinements: options.maxRefinements ?? 12,
      planVerification: options.planVerification ?? true,
      codeExplanation: options.codeExplanation ?? true,
      instrumentedDebug: options.instrumentedDebug ?? true,
      memory: options.memory ?? "(none)",
      planOnly: options.planOnly ?? false,
      knowledge: options.knowledge,
    };
    this.changes = new WorkspaceChanges(task.workspace);
    const s = this.llm.budget.state;
    this.budgetAtStart = { calls: s.llmCalls, prompt: s.promptTokens, completion: s.completionTokens, dollars: s.dollars, waitMs: s.waitMs };
    this.outcome = emptyOutcome("lpw");
    this.limits = new CandidateLimits(task.candidateLimit, task.sandbox.timeoutMs);
  }

  async run(): Promise<Outcome> {
    try {
      this.problem = this.task.description ?? "Make the failing tests pass.";
      const visible = visibleSelection(this.task);
      if (!visible) throw new StopRun({ reason: "unsupported", message: "no failing test to work on: reproduce the issue first (withReproduction)" });
      const before = await this.test(visible);
      this.limits.learn(before);
      this.outcome.evidence.before = evidenceOf(before);
      const broken = brokenRunReason(before, this.task.workspace);
      if (broken) throw new StopRun({ reason: "broken-tests", message: `the test command is broken: ${broken}` });
      const failing = failingTests(before);
      if (failing.length === 0) throw new StopRun({ reason: "nothing-to-fix", message: "every visible test already passes; there is nothing to repair" });
      const baseline = this.task.regression ? await this.test(this.task.regression) : undefined;
      if (baseline) this.outcome.evidence.regressionBefore = evidenceOf(baseline);
      if (baseline) this.limits.learn(baseline);

      const digest = digestReport(before, { readSource: (file, line) => this.sourceLine(file, line) });
      const mentioned = [...new Set(failing.flatMap((t) => [t.file, ...[...(t.details ?? "").matchAll(/([\w./-]+\.(?:py|[cm]?[jt]sx?))[:"]/g)].map((m) => m[1])]).filter((f): f is string => Boolean(f)))];
      const context = await buildContext(this.task.workspace, { query: `${this.problem}\n${digest}`, mentioned, isTestFile: this.task.isTestFile, llm: this.llm });
      this.contextFiles = context.files;
      const tests = await failingTestsBlock(this.task.workspace, failing);

      const { plan, verification } = await this.planAndVerify(digest, context.code, tests);
      const knowledge = this.options.knowledge === "on-disk" ? onDiskKnowledge(this.task.workspace) : this.options.knowledge;
      if (knowledge && !this.options.planOnly) await this.gatherKnowledge(plan, context.code, knowledge);
      if (this.options.planOnly) return this.finish({ reason: "planned", message: this.outcome.plan.verified ? "the plan is verified on the visible tests; no code was changed" : "the plan could not be verified on the visible tests; no code was changed" });
      let report = await this.implement(plan, verification, visible, undefined);
      if (await this.accept(report, baseline)) return this.finish({ reason: "solved", message: "the implementation of the verified plan passes the visible tests and the regression gate" });

      for (let round = 1; round <= this.options.maxRefinements; round++) {
        this.task.onProgress?.({ kind: "stage", stage: "refine", detail: `round ${round} of ${this.options.maxRefinements}` });
        if (this.repeats >= 3) throw new StopRun({ reason: "stuck", message: `the same failure three times in a row: ${this.lastSignature.split("\n")[0]}` });
        if (this.repeats === 2) {
          // The patch of a patch keeps failing the same way: start over from the plan.
          await this.changes.restore();
          report = await this.implement(plan, verification, visible, `An earlier implementation failed like this, twice:\n${digestReport(report)}`);
        } else {
          report = await this.refine(plan, verification, report, visible);
        }
        if (await this.accept(report, baseline)) return this.finish({ reason: "solved", message: `the refined code passes the visible tests and the regression gate after ${round} refinement round(s)` });
      }
      return this.finish({ reason: "iterations", message: `no passing change after ${this.options.maxRefinements} refinement rounds` });
    } catch (error) {
      if (error instanceof StopRun) return this.finish(error.stop);
      if (error instanceof BudgetExceededError) return this.finish({ reason: "budget", message: error.message });
      if (error instanceof LlmStageError) return this.finish({ reason: "error", message: `the ${error.stage} stage failed: ${error.message.slice(error.stage.length + 2)}` });
      throw error;
    } finally {
      if (this.outcome.status !== "fixed") await this.changes.restore();
    }
  }

  private async planAndVerify(digest: string, code: string, tests: string): Promise<{ plan: string[]; verification: Verification | undefined }> {
    this.task.onProgress?.({ kind: "stage", stage: "plan" });
    let plan = (await this.llm.call("plan", { untrusted: { problem: this.problem, failures: digest, code }, trusted: { memory: this.options.memory } }, planSchema)).value.steps;
    let verification: Verification | undefined;
    let verified = false;
    let rounds = 0;
    if (this.options.planVerification) {
      for (; rounds < this.options.maxPlanIterations && !verified; ) {
        rounds += 1;
        this.task.onProgress?.({ kind: "stage", stage: "verify-plan", detail: `round ${rounds}` });
        verification = (await this.llm.call("verify-plan", { trusted: { plan: numbered(plan) }, untrusted: { tests, code } }, verificationSchema)).value;
        if (verification.tests.some((t) => !t.matches)) {
          if (verification.revisedPlan) plan = verification.revisedPlan.steps;
          continue;
        }
        const check = (await this.llm.call("check-verification", { trusted: { plan: numbered(plan), verification: formatVerification(verification) } }, checkSchema)).value;
        verified = check.ok;
      }
    }
    this.outcome.plan.steps = plan;
    this.outcome.plan.verified = verified;
    this.outcome.plan.planIterations = rounds;
    this.outcome.plan.verification = verification?.tests.map((t) => ({ test: t.test, derived: t.derived, expected: t.expected, matches: t.matches }));
    return { plan, verification };
  }

  private async gatherKnowledge(plan: string[], code: string, provider: KnowledgeProvider): Promise<void> {
    this.task.onProgress?.({ kind: "stage", stage: "knowledge" });
    const { value } = await this.llm.call("knowledge", { untrusted: { problem: this.problem, code }, trusted: { plan: numbered(plan) } }, knowledgeSchema);
    const snippets = value.queries.length ? await provider.search(value.queries, 4) : [];
    this.knowledgeText = formatKnowledge(value.facts, snippets);
  }

  private async implement(plan: string[], verification: Verification | undefined, visible: TestSelection, hint: string | undefined): Promise<TestReport> {
    this.task.onProgress?.({ kind: "stage", stage: "implement" });
    const code = await this.currentCode();
    const { value } = await this.llm.call(
      "implement",
      { untrusted: { problem: hint ? `${this.problem}\n\n${hint}` : this.problem, code, knowledge: this.knowledgeText }, trusted: { plan: numbered(plan), verification: verification ? formatVerification(verification) : "(plan verification disabled)" } },
      editsSchema,
    );
    if (value.edits.length === 0) throw new StopRun({ reason: "no-change", message: `no code change: ${value.noChange ?? ""}` });
    return this.attempt(value.edits, visible, hint ? "re-implementation from the plan" : "implementation of the plan", undefined);
  }

  private async refine(plan: string[], verification: Verification | undefined, report: TestReport, visible: TestSelection): Promise<TestReport> {
    const failures = digestReport(report);
    const first = failingTests(report)[0];
    const code = await this.currentCode();
    let trace = "(instrumented debug run disabled)";
    if (this.options.instrumentedDebug && first) {
      const { value } = await this.llm.call("instrument", { trusted: { plan: numbered(plan), test: first.id }, untrusted: { code } }, instrumentSchema);
      const run = await instrumentedRun(this.task.workspace, value.edits, first.id, this.task.probe ?? this.task.verifier);
      this.outcome.cost.testRuns += 1;
      this.outcome.cost.testSeconds += run.durationMs / 1000;
      trace = run.trace;
    }
    const forTest = verification?.tests.find((t) => first && (first.id.includes(t.test) || t.test.includes(first.name))) ?? verification?.tests[0];
    const analysis = (await this.llm.call("analyze-error", { trusted: { verification: forTest ? JSON.stringify(forTest, null, 2) : numbered(plan) }, untrusted: { trace, failures } }, analysisSchema)).value;
    const explanation = this.options.codeExplanation ? (await this.llm.call("explain", { untrusted: { code } }, explanationSchema)).value.explanation : "(code explanation disabled)";
    const { value } = await this.llm.call(
      "refine",
      { trusted: { plan: numbered(plan), analysis: `${analysis.divergence}\nFix: ${analysis.fix}`, explanation }, untrusted: { failures, code } },
      editsSchema,
    );
    if (value.edits.length === 0) throw new StopRun({ reason: "no-change", message: `no code change: ${value.noChange ?? ""}` });
    return this.attempt(value.edits, visible, "refinement", `${analysis.divergence} → ${analysis.fix}`);
  }

  /** Applies a candidate's edits and runs the visible tests; an edit that does not apply is a failed attempt. */
  private async attempt(edits: Edit[], visible: TestSelection, description: string, analysis: string | undefined): Promise<TestReport> {
    this.outcome.cost.candidatesGenerated += 1;
    this.outcome.cost.candidatesTried += 1;
    const index = this.outcome.attempts.length + 1;
    try {
      await this.changes.apply(edits);
    } catch (error) {
      if (!(error instanceof EditError || error instanceof UnsafePathError)) throw error;
      const report = syntheticFailure(error.message);
      this.record({ index, description: `${description}: the edits did not apply`, result: "edit-failed", passed: 0, failed: 1, analysis }, report);
      return report;
    }
    const report = await this.test(visible);
    const failed = failingTests(report).length;
    const passed = report.tests.length - failed;
    if (passed > (this.outcome.closestAttempt?.passed ?? -1)) this.outcome.closestAttempt = { ...this.changes.diff(), passed, failed };
    const timedOut = candidateTimedOut(report);
    this.record({ index, description, result: allPassed(report) ? "plausible" : timedOut ? "timed-out" : "still-failing", ...(timedOut ? { limit: timedOut } : {}), passed: report.tests.length - failed, failed, analysis, file: this.changes.diff().files.join(", ") || undefined }, report);
    return report;
  }

  private record(attempt: Attempt, report: TestReport): void {
    this.outcome.attempts.push(attempt);
    this.task.onProgress?.({ kind: "attempt", index: attempt.index, total: this.outcome.attempts.length, description: attempt.description, passed: attempt.passed, failed: attempt.failed, limit: attempt.limit });
    const signature = failureSignature(report);
    this.repeats = signature === this.lastSignature ? this.repeats + 1 : 1;
    this.lastSignature = signature;
  }

  /** Visible tests pass: then the regression gate decides. */
  private async accept(report: TestReport, baseline: TestReport | undefined): Promise<boolean> {
    if (!allPassed(report)) return false;
    this.outcome.evidence.after = evidenceOf(report);
    if (!this.task.regression || !baseline) return true;
    const regression = await this.test(this.task.regression);
    this.outcome.evidence.regressionAfter = evidenceOf(regression);
    const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
    const broken = failingTests(regression).filter((t) => passedBefore.has(t.id));
    const last = this.outcome.attempts.at(-1);
    // A regression run stopped by its time limit may have reported no test at all: not a pass.
    const timedOut = candidateTimedOut(regression);
    if (broken.length === 0 && !timedOut) return true;
    if (last) Object.assign(last, timedOut ? { result: "timed-out", limit: timedOut } : { result: "regression-failed" });
    return false;
  }

  private async test(selection: TestSelection): Promise<TestReport> {
    const report = await this.task.verifier.run(this.task.workspace, selection, undefined, this.limits.limitFor(selection));
    this.outcome.cost.testRuns += 1;
    this.outcome.cost.testSeconds += report.run.durationMs / 1000;
    return report;
  }

  private async currentCode(): Promise<string> {
    const files = [...new Set([...this.contextFiles, ...this.changes.diff().files])].filter((f) => !this.task.isTestFile(f));
    const parts: string[] = [];
    for (const file of files) {
      const text = await readFile(join(this.task.workspace, file), "utf8").catch(() => undefined);
      if (text !== undefined) parts.push(`--- ${file}\n${text}`);
    }
    return parts.join("\n\n") || "(no code located)";
  }

  private sourceLine(file: string, line: number): string | undefined {
    try {
      return readFileSync(safeRepoPath(this.task.workspace, file), "utf8").split("\n")[line - 1];
    } catch {
      return undefined;
    }
  }

  private finish(stop: Stop): Outcome {
    const o = this.outcome;
    o.stopReason = stop.reason;
    o.message = stop.message;
    if (stop.reason === "solved") {
      o.status = "fixed";
      const { diff, files } = this.changes.diff();
      o.diff = diff;
      o.changedFiles = files;
      o.closestAttempt = undefined;
    }
    const s = this.llm.budget.state;
    o.cost.llmCalls = s.llmCalls - this.budgetAtStart.calls;
    o.cost.promptTokens = s.promptTokens - this.budgetAtStart.prompt;
    o.cost.completionTokens = s.completionTokens - this.budgetAtStart.completion;
    o.cost.dollars = s.dollars - this.budgetAtStart.dollars;
    o.cost.llmSeconds = (s.waitMs - this.budgetAtStart.waitMs) / 1000;
    o.cost.wallSeconds = (performance.now() - this.started) / 1000;
    o.cost.testSeconds = Math.round(o.cost.testSeconds * 1000) / 1000;
    return o;
  }
}

function numbered(steps: string[]): string {
  return steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
}

function formatVerification(v: Verification): string {
  return v.tests.map((t) => `Test ${t.test}:\n${t.steps.map((s) => `  after step ${s.step}: ${s.value}`).join("\n")}\n  derived: ${t.derived}; expected: ${t.expected}; ${t.matches ? "agrees" : "DIFFERS"}`).join("\n\n");
}

function syntheticFailure(message: string): TestReport {
  return {
    run: { argv: [], exitCode: null, signal: null, timedOut: false, durationMs: 0, output: message, outputBytes: message.length, outputTruncated: false, isolation: "none" },
    tests: [{ id: "(edits)", name: "(edits)", status: "error", message }],
    source: "none",
  };
}
