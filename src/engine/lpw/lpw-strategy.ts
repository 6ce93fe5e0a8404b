// LPW (Planning-Driven Programming, techniques.md §1) on a real repository: plan; verify
// the plan on every visible test, revising it on a mismatch (a separate audit of the
// verification added nothing in 12 of 12 measured tasks, so a verification that disagrees
// revises the plan directly); implement as edits; run the visible tests; on failure, an instrumented debug
// run, an error analysis against the plan verification, a code explanation and a
// refinement; then the regression gate. The same failure twice in a row re-implements
// from the plan; three times stops the run.
import type { LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import { failingTestsBlock } from "./failing-tests-block.ts";
import { failingTests, type TestCaseResult, type TestReport } from "../../verify/test-report.ts";
import type { Edit } from "../../workspace/apply-edits.ts";
import { CONTEXT_READ_LIMIT, readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { editContext } from "../context/edit-context.ts";
import { failureContext } from "../context/failure-context.ts";
import { Stop, StrategyRun, type Validated } from "../run/strategy-run.ts";
import type { Outcome, Strategy, Task } from "../task.ts";
import { failureSignature } from "./failure-signature.ts";
import { findingsText } from "./findings-text.ts";
import { instrumentedRun } from "./instrumented-run.ts";
import { baselineWithValues } from "./visible-values.ts";
import { formatKnowledge, onDiskKnowledge, type KnowledgeProvider } from "../knowledge/knowledge-search.ts";
import {
  analysisSchema,
  editsSchema,
  explanationSchema,
  instrumentSchema,
  knowledgeSchema,
  planSchema,
  verificationSchema,
  type Verification,
} from "./schemas.ts";
import type { WorkspaceChanges } from "./workspace-changes.ts";
import { unnumberedEdits } from "./unnumbered-edits.ts";
import { formatVerification, numbered } from "./plan-text.ts";

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

export function lpwStrategy(options: LpwOptions): Strategy {
  return { name: "lpw", run: (task) => new LpwRun(task, options).run() };
}

class LpwRun {
  private readonly task: Task;
  private readonly options: Required<Omit<LpwOptions, "memory" | "knowledge">> & {
    memory: string;
    knowledge: KnowledgeProvider | "on-disk" | undefined;
  };
  private knowledgeText = "(none)";
  private readonly llm: LlmClient;
  private readonly harness: StrategyRun;
  private readonly outcome: Outcome;
  /** The symbols the plan's context showed, kept in view for the edits. */
  private contextSymbols: Array<{ path: string; name: string }> = [];
  private baselineFailing: readonly TestCaseResult[] = [];
  private problem = "";
  private lastSignature = "";
  private repeats = 0;

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
    // One implementation, then at most one candidate per refinement round.
    this.harness = new StrategyRun(task, "lpw", { llm: options.llm, total: () => this.options.maxRefinements + 1 });
    this.outcome = this.harness.outcome;
  }

  private get changes(): WorkspaceChanges {
    return this.harness.changes;
  }

  run(): Promise<Outcome> {
    return this.harness.run(() => this.repair());
  }

  private async repair(): Promise<Outcome> {
    const run = this.harness;
    this.problem = this.task.description ?? "Make the failing tests pass.";
    const baseline = await run.baseline();
    // A helper's bare AssertionError is rerun once with its values made visible.
    const { before, failing } = await baselineWithValues(
      this.task,
      (runs, ms) => run.countTestRuns(runs, ms),
      baseline.before,
      baseline.failing,
    );

    const digest = digestReport(before, { readSource: (file, line) => this.sourceLine(file, line) });
    const context = await failureContext(this.task.workspace, {
      problem: this.problem,
      digest,
      failing,
      suspicious: (this.task.findings?.suspicious ?? []).map((s) => ({ file: s.file, line: s.line })),
      isTestFile: this.task.isTestFile,
      llm: this.llm,
    });
    // The implement prompt keeps the focal symbols in view, not those a shared word retrieved.
    this.contextSymbols = context.symbols
      .filter((s) => s.reason !== "retrieval")
      .map((s) => ({ path: s.path, name: s.name }));
    this.baselineFailing = failing;
    const tests = await failingTestsBlock(this.task.workspace, failing);

    const { plan, verification } = await this.planAndVerify(digest, context.code, tests);
    const knowledge =
      this.options.knowledge === "on-disk" ? onDiskKnowledge(this.task.workspace) : this.options.knowledge;
    if (knowledge && !this.options.planOnly) await this.gatherKnowledge(plan, context.code, knowledge);
    if (this.options.planOnly)
      return run.finish(
        "planned",
        this.outcome.plan.verified
          ? "the plan is verified on the visible tests; no code was changed"
          : "the plan could not be verified on the visible tests; no code was changed",
      );
    let latest = await this.implement(plan, verification, undefined, tests);
    if (this.accepted(latest))
      return run.finish(
        "solved",
        "the implementation of the verified plan passes the visible tests and the regression gate",
      );

    for (let round = 1; round <= this.options.maxRefinements; round++) {
      this.task.onProgress?.({
        kind: "stage",
        stage: "refine",
        detail: `round ${round} of ${this.options.maxRefinements}`,
      });
      if (this.repeats >= 3)
        throw new Stop("stuck", `the same failure three times in a row: ${this.lastSignature.split("\n")[0]}`);
      if (this.repeats === 2) {
        // The patch of a patch keeps failing the same way: start over from the plan.
        await this.changes.restore();
        latest = await this.implement(
          plan,
          verification,
          `An earlier implementation failed like this, twice:\n${digestReport(latest.report)}`,
          tests,
        );
      } else {
        latest = await this.refine(plan, verification, latest.report);
      }
      if (this.accepted(latest))
        return run.finish(
          "solved",
          `the refined code passes the visible tests and the regression gate after ${round} refinement round(s)`,
        );
    }
    return run.finish("iterations", `no passing change after ${this.options.maxRefinements} refinement rounds`);
  }

  /** A candidate that passed the visible tests and the regression gate is the fix. */
  private accepted({ attempt }: Validated): boolean {
    if (attempt.result !== "plausible") return false;
    this.harness.accept(attempt);
    return true;
  }

  private async planAndVerify(
    digest: string,
    code: string,
    tests: string,
  ): Promise<{ plan: string[]; verification: Verification | undefined }> {
    this.task.onProgress?.({ kind: "stage", stage: "plan" });
    if (this.options.memory !== "(none)") this.outcome.plan.memoryShown = true;
    let plan = (
      await this.llm.call(
        "plan",
        {
          untrusted: {
            problem: this.problem,
            tests: tests || digest,
            failures: tests ? "" : digest,
            code,
            findings: findingsText(this.task.findings),
          },
          trusted: { memory: this.options.memory },
        },
        planSchema,
      )
    ).value.steps;
    let verification: Verification | undefined;
    let verified = false;
    let rounds = 0;
    if (this.options.planVerification) {
      for (; rounds < this.options.maxPlanIterations && !verified;) {
        rounds += 1;
        this.task.onProgress?.({ kind: "stage", stage: "verify-plan", detail: `round ${rounds}` });
        // The code the plan names (and the focal code it was made from, when it names none of it), as the
        // implement prompt will show it: not the plan context again, whose other functions the plan passed over.
        const planned = await this.currentCode(plan, this.baselineFailing);
        verification = (
          await this.llm.call(
            "verify-plan",
            {
              trusted: { plan: numbered(plan) },
              untrusted: { problem: this.problem, tests: tests || digest, code: planned },
            },
            verificationSchema,
          )
        ).value;
        // A verification that disagrees revises the plan; the revised plan is verified in the next round.
        if (verification.tests.some((t) => !t.matches)) {
          if (verification.revisedPlan) plan = verification.revisedPlan.steps;
          continue;
        }
        verified = true;
      }
    }
    this.outcome.plan.steps = plan;
    this.outcome.plan.verified = verified;
    this.outcome.plan.planIterations = rounds;
    this.outcome.plan.verification = verification?.tests.map((t) => ({
      test: t.test,
      derived: t.derived,
      expected: t.expected,
      matches: t.matches,
    }));
    return { plan, verification };
  }

  private async gatherKnowledge(plan: string[], code: string, provider: KnowledgeProvider): Promise<void> {
    this.task.onProgress?.({ kind: "stage", stage: "knowledge" });
    const { value } = await this.llm.call(
      "knowledge",
      { untrusted: { problem: this.problem, code }, trusted: { plan: numbered(plan) } },
      knowledgeSchema,
    );
    const snippets = value.queries.length ? await provider.search(value.queries, 4) : [];
    this.knowledgeText = formatKnowledge(value.facts, snippets);
  }

  private async implement(
    plan: string[],
    verification: Verification | undefined,
    hint: string | undefined,
    tests: string,
  ): Promise<Validated> {
    this.task.onProgress?.({ kind: "stage", stage: "implement" });
    const code = await this.currentCode(plan, this.baselineFailing);
    const { value } = await this.llm.call(
      "implement",
      {
        untrusted: {
          problem: this.problem,
          // A verified plan's walk-through names each test with its derived and expected values: the tests'
          // source and failures (shown to the plan and verify prompts) are not sent a third time.
          tests: this.outcome.plan.verified ? "" : tests,
          code,
          knowledge: this.knowledgeText,
          hint: hint ?? "",
        },
        trusted: {
          plan: numbered(plan),
          // Without a verification (the ablation) the section is left out.
          verification: verification ? formatVerification(verification) : "(none)",
        },
      },
      editsSchema,
    );
    if (value.edits.length === 0) throw new Stop("no-change", `no code change: ${value.noChange ?? ""}`);
    return this.attempt(
      value.edits,
      hint ? "re-implementation from the plan" : "implementation of the plan",
      undefined,
    );
  }

  private async refine(plan: string[], verification: Verification | undefined, report: TestReport): Promise<Validated> {
    const failures = digestReport(report);
    const first = failingTests(report)[0];
    const code = await this.currentCode(plan, failingTests(report));
    // The first failing test's source and how it fails (its expected and actual values), as the plan prompt shows tests.
    const test = first ? await failingTestsBlock(this.task.workspace, [first]) : "";
    // Without an instrumented run (the ablation) the trace section is left out.
    let trace = "(none)";
    if (this.options.instrumentedDebug && first) {
      const { value } = await this.llm.call(
        "instrument",
        { trusted: { plan: numbered(plan), test: first.id }, untrusted: { code, source: test } },
        instrumentSchema,
      );
      const run = await instrumentedRun(
        this.task.workspace,
        value.edits,
        first.id,
        this.task.probe ?? this.task.verifier,
      );
      this.harness.countTestRuns(1, run.durationMs);
      trace = run.trace;
    }
    // The verified values of this very test; a test the plan was never checked on (a regression test) gets none,
    // since another test's values would mislead.
    const planned = Boolean(first && this.baselineFailing.some((t) => t.id === first.id));
    const forTest =
      verification?.tests.find((t) => first && (first.id.includes(t.test) || t.test.includes(first.name))) ??
      (planned ? verification?.tests[0] : undefined);
    const analysis = (
      await this.llm.call(
        "analyze-error",
        {
          // The plan's steps, then this test's walk-through in the implement prompt's words (not its JSON); a test
          // the plan was never verified on is said to be one.
          trusted: {
            verification: forTest
              ? `${numbered(plan)}\n\n${formatVerification({ tests: [forTest] })}`
              : `(the plan was not verified on this test; its steps:)\n${numbered(plan)}`,
          },
          untrusted: { trace, test, failures },
        },
        analysisSchema,
      )
    ).value;
    const explanation = this.options.codeExplanation
      ? (
          await this.llm.call(
            "explain",
            // The question: this test's run, and where the analysis found it parts from the plan.
            {
              untrusted: { code, focus: `${test || failures}\n\nWhere it parts from the plan: ${analysis.divergence}` },
            },
            explanationSchema,
          )
        ).value.explanation
      : "(none)";
    // The refine prompt's code is built again with the analysis's fix in view, its names first: the fix may name
    // code the plan did not (js-yaml's writeScalar, where the compat-mode quoting is), and only shown lines can be edited.
    const refineCode = await this.currentCode([analysis.fix, ...plan], failingTests(report));
    const { value } = await this.llm.call(
      "refine",
      {
        trusted: { plan: numbered(plan), analysis: `${analysis.divergence}\nFix: ${analysis.fix}`, explanation },
        untrusted: { problem: this.problem, failures, test, code: refineCode },
      },
      editsSchema,
    );
    if (value.edits.length === 0) throw new Stop("no-change", `no code change: ${value.noChange ?? ""}`);
    return this.attempt(value.edits, "refinement", `${analysis.divergence} → ${analysis.fix}`);
  }

  /** Applies a candidate's edits on the current code and validates it; the same failure again counts towards a restart or a stop. */
  private async attempt(edits: Edit[], description: string, analysis: string | undefined): Promise<Validated> {
    const validated = await this.harness.tryEdits(unnumberedEdits(edits), { description, analysis });
    const signature = failureSignature(validated.report);
    this.repeats = signature === this.lastSignature ? this.repeats + 1 : 1;
    this.lastSignature = signature;
    return validated;
  }

  /** The code an edit is written against, by symbol from the current files (never a file cut at a fixed length). */
  private async currentCode(plan: string[], failing: readonly TestCaseResult[]): Promise<string> {
    const context = await editContext(this.task.workspace, {
      problem: this.problem,
      plan,
      failing,
      changed: this.changes.changedLines(),
      earlier: this.contextSymbols,
      isTestFile: this.task.isTestFile,
    });
    return context.code || "(no code located)";
  }

  private sourceLine(file: string, line: number): string | undefined {
    try {
      return readWorktreeTextSync(this.task.workspace, file, { maxBytes: CONTEXT_READ_LIMIT }).split("\n")[line - 1];
    } catch {
      return undefined;
    }
  }
}
