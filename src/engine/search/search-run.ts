// What the LLM search strategies (direct, SEIDR, SLPW) add to the shared run harness: the
// start (the baseline, then the code context located from the failures), the code as the
// model sees it, the candidate budget, and a candidate program executed on the original
// code. Counting, attempts, the regression gate, evidence and costs are the harness's.
import type { LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import type { TestCaseResult, TestReport } from "../../verify/test-report.ts";
import type { Edit } from "../../workspace/apply-edits.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { buildContext, type CodeContext } from "../context/build-context.ts";
import { failureFrames } from "../context/failure-frames.ts";
import { baselineWithValues } from "../lpw/visible-values.ts";
import { namedIdentifiers } from "../reproduce/reproduce-issue.ts";
import { Stop, StrategyRun } from "../run/strategy-run.ts";
import type { Attempt, Outcome, Task } from "../task.ts";

export type Start = {
  before: TestReport;
  failing: TestCaseResult[];
  context: CodeContext;
  problem: string;
  digest: string;
};

/** A candidate program's run: its report, the visible tests it passed and failed, and its attempt. */
export type Executed = { report: TestReport; passed: number; failed: number; attempt: Attempt };

export class SearchRun extends StrategyRun {
  private contextFiles: string[] = [];

  constructor(task: Task, llm: LlmClient, strategy: string) {
    super(task, strategy, { llm });
  }

  /** Runs the search; budget and stage failures become stop reasons; the code is restored unless fixed. */
  search(body: (start: Start) => Promise<Outcome>): Promise<Outcome> {
    return this.run(async () => body(await this.start()));
  }

  private async start(): Promise<Start> {
    const baseline = await this.baseline();
    // A helper's bare AssertionError is rerun once with its values made visible.
    const { before, failing } = await baselineWithValues(
      this.task,
      (runs, ms) => this.countTestRuns(runs, ms),
      baseline.before,
      baseline.failing,
    );
    const digest = digestReport(before);
    const context = await buildContext(this.task.workspace, {
      query: `${this.task.description ?? ""}\n${digest}`,
      mentioned: failing.flatMap((t) => (t.file ? [t.file] : [])),
      frames: failureFrames(failing, this.task.workspace),
      named: namedIdentifiers(this.task.description ?? ""),
      isTestFile: this.task.isTestFile,
    });
    this.contextFiles = context.files;
    return { before, failing, context, problem: this.task.description ?? "Make the failing tests pass.", digest };
  }

  /** The located files and those the current candidate changed, as the model sees them. */
  async code(): Promise<string> {
    const parts: string[] = [];
    for (const file of [...new Set([...this.contextFiles, ...this.changes.diff().files])])
      parts.push(`--- ${file}\n${await readWorktreeText(this.task.workspace, file).catch(() => "")}`);
    return parts.join("\n\n") || "(no code located)";
  }

  /** A stage's edits; an answer of no edits ("no code change: …") ends the run. */
  editsOf(value: { edits: Edit[]; noChange?: string | null | undefined }): Edit[] {
    if (value.edits.length === 0) throw new Stop("no-change", `no code change: ${value.noChange ?? ""}`);
    return value.edits;
  }

  /** Call before asking the model for a candidate: stops the run once the candidate budget is spent. */
  ensureCandidateBudget(): void {
    if (this.outcome.cost.candidatesGenerated >= this.task.budget.candidates)
      throw new Stop("budget", `${this.outcome.cost.candidatesGenerated} candidate(s) generated (the budget)`);
  }

  /** A candidate program (edits on the original code): applied, validated, recorded; undefined when its edits do not apply. */
  async execute(edits: Edit[], description: string): Promise<Executed | undefined> {
    this.ensureCandidateBudget();
    await this.changes.restore();
    const { attempt, report } = await this.tryEdits(edits, { description });
    if (attempt.result === "edit-failed") return undefined;
    return { report, passed: attempt.passed, failed: attempt.failed, attempt };
  }

  /** A candidate that passed the visible tests and the regression gate becomes the fix. */
  acceptIf(executed: Executed): boolean {
    if (executed.attempt.result !== "plausible") return false;
    this.accept(executed.attempt);
    return true;
  }
}
