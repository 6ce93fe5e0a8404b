// What every LLM search strategy (direct, SEIDR, SLPW) does around its own search: run
// the tests and count them, start (reproduce the failure, take the regression baseline,
// build the code context), execute a candidate program on the original code and record
// the attempt, accept a candidate through the regression gate, and finish with the costs
// taken from the budget. The code is restored unless a fix was accepted.
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { brokenRunReason } from "../../verify/load-failure.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { allPassed, failingTests, type TestCaseResult, type TestReport } from "../../verify/test-report.ts";
import { EditError, type Edit } from "../../workspace/apply-edits.ts";
import { readRepoFile, UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext, type CodeContext } from "../context/build-context.ts";
import { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import { CandidateLimits, candidateTimedOut } from "../candidate-limits.ts";
import { emptyOutcome, evidenceOf, visibleSelection, type Outcome, type Task } from "../task.ts";

export type Start = { before: TestReport; failing: TestCaseResult[]; baseline: TestReport | undefined; context: CodeContext; problem: string; digest: string };

export class Stop extends Error {
  readonly reason: Outcome["stopReason"];
  constructor(reason: Outcome["stopReason"], message: string) {
    super(message);
    this.reason = reason;
  }
}

export class SearchRun {
  readonly outcome: Outcome;
  readonly changes: WorkspaceChanges;
  readonly task: Task;
  private readonly llm: LlmClient;
  private readonly started = performance.now();
  private readonly at: LlmClient["budget"]["state"];
  private contextFiles: string[] = [];
  /** Candidate runs' time limits, learnt from the unchanged code's runs. */
  private readonly limits: CandidateLimits;

  constructor(task: Task, llm: LlmClient, strategy: string) {
    this.task = task;
    this.llm = llm;
    this.outcome = emptyOutcome(strategy);
    this.changes = new WorkspaceChanges(task.workspace);
    this.at = { ...llm.budget.state };
    this.limits = new CandidateLimits(task.candidateLimit, task.sandbox.timeoutMs);
  }

  /** Runs the search; budget and stage failures become stop reasons; the code is restored unless fixed. */
  async run(search: (start: Start) => Promise<Outcome>): Promise<Outcome> {
    try {
      return await search(await this.start());
    } catch (error) {
      if (error instanceof Stop) return this.finish(error.reason, error.message);
      if (error instanceof BudgetExceededError) return this.finish("budget", error.message);
      if (error instanceof LlmStageError) return this.finish("error", `the ${error.stage} stage failed: ${error.message.slice(error.stage.length + 2)}`);
      throw error;
    } finally {
      if (this.outcome.status !== "fixed") await this.changes.restore();
    }
  }

  async test(selection: TestSelection | undefined = visibleSelection(this.task)): Promise<TestReport> {
    if (!selection) throw new Stop("unsupported", "no failing test to work on: reproduce the issue first (withReproduction)");
    const report = await this.task.verifier.run(this.task.workspace, selection, undefined, this.limits.limitFor(selection));
    this.outcome.cost.testRuns += 1;
    this.outcome.cost.testSeconds += report.run.durationMs / 1000;
    return report;
  }

  private async start(): Promise<Start> {
    const before = await this.test();
    this.limits.learn(before);
    this.outcome.evidence.before = evidenceOf(before);
    const failing = failingTests(before);
    const broken = brokenRunReason(before, this.task.workspace);
    if (broken) throw new Stop("broken-tests", `the test command is broken: ${broken}`);
    if (failing.length === 0) throw new Stop("nothing-to-fix", "every visible test already passes");
    const baseline = this.task.regression ? await this.test(this.task.regression) : undefined;
    if (baseline) this.limits.learn(baseline);
    const digest = digestReport(before);
    const context = await buildContext(this.task.workspace, { query: `${this.task.description ?? ""}\n${digest}`, mentioned: failing.flatMap((t) => (t.file ? [t.file] : [])), isTestFile: this.task.isTestFile });
    this.contextFiles = context.files;
    return { before, failing, baseline, context, problem: this.task.description ?? "Make the failing tests pass.", digest };
  }

  /** The located files and those the current candidate changed, as the model sees them. */
  async code(): Promise<string> {
    const parts: string[] = [];
    for (const file of [...new Set([...this.contextFiles, ...this.changes.diff().files])]) parts.push(`--- ${file}\n${await readRepoFile(this.task.workspace, file).catch(() => "")}`);
    return parts.join("\n\n") || "(no code located)";
  }

  /** A stage's edits; an answer of no edits ("no code change: …") ends the run. */
  editsOf(value: { edits: Edit[]; noChange?: string | null | undefined }): Edit[] {
    if (value.edits.length === 0) throw new Stop("no-change", `no code change: ${value.noChange ?? ""}`);
    return value.edits;
  }

  /** Call before asking the model for a candidate: stops the run once the candidate budget is spent. */
  ensureCandidateBudget(): void {
    if (this.outcome.cost.candidatesGenerated >= this.task.budget.candidates) throw new Stop("budget", `${this.outcome.cost.candidatesGenerated} candidate(s) generated (the budget)`);
  }

  /** A candidate program (edits on the original code): applied, tested, recorded; undefined when its edits do not apply. */
  async execute(edits: Edit[], description: string): Promise<{ report: TestReport; passed: number; failed: number } | undefined> {
    this.ensureCandidateBudget();
    this.outcome.cost.candidatesGenerated += 1;
    this.outcome.cost.candidatesTried += 1;
    await this.changes.restore();
    try {
      await this.changes.apply(edits);
    } catch (error) {
      if (!(error instanceof EditError || error instanceof UnsafePathError)) throw error;
      this.outcome.attempts.push({ index: this.outcome.attempts.length + 1, description: `${description}: the edits did not apply`, result: "edit-failed", passed: 0, failed: 1 });
      return undefined;
    }
    const report = await this.test();
    const failed = failingTests(report).length;
    const passed = report.tests.length - failed;
    const timedOut = candidateTimedOut(report);
    this.outcome.attempts.push({ index: this.outcome.attempts.length + 1, description, result: allPassed(report) ? "plausible" : timedOut ? "timed-out" : "still-failing", ...(timedOut ? { limit: timedOut } : {}), passed, failed });
    return { report, passed, failed };
  }

  /** The current candidate passes the visible tests: the regression gate decides; a pass keeps the change. */
  async accept(report: TestReport, baseline: TestReport | undefined): Promise<boolean> {
    if (!allPassed(report)) return false;
    this.outcome.evidence.after = evidenceOf(report);
    if (baseline && this.task.regression) {
      const regression = await this.test(this.task.regression);
      this.outcome.evidence.regressionAfter = evidenceOf(regression);
      const passedBefore = new Set(baseline.tests.filter((t) => t.status === "pass").map((t) => t.id));
      // A regression run stopped by its time limit may have reported no test at all: not a pass.
      if (failingTests(regression).some((t) => passedBefore.has(t.id)) || candidateTimedOut(regression)) return false;
    }
    const { diff, files } = this.changes.diff();
    Object.assign(this.outcome, { status: "fixed", diff, changedFiles: files });
    return true;
  }

  finish(reason: Outcome["stopReason"], message: string): Outcome {
    const s = this.llm.budget.state;
    Object.assign(this.outcome, { stopReason: reason, message });
    Object.assign(this.outcome.cost, {
      llmCalls: s.llmCalls - this.at.llmCalls,
      promptTokens: s.promptTokens - this.at.promptTokens,
      completionTokens: s.completionTokens - this.at.completionTokens,
      dollars: s.dollars - this.at.dollars,
      llmSeconds: (s.waitMs - this.at.waitMs) / 1000,
      wallSeconds: (performance.now() - this.started) / 1000,
    });
    return this.outcome;
  }
}
