// What a run cost: the model's share is the LLM budget's growth since the run started
// (the budget may be shared with a reproduction stage or an earlier strategy), plus the
// run's own wall time; test runs and seconds are counted as they happen.
import type { BudgetState } from "../../llm/budget.ts";
import type { Outcome } from "../task.ts";

type Spend = Pick<BudgetState, "llmCalls" | "cachedCalls" | "promptTokens" | "completionTokens" | "dollars" | "waitMs">;

export class RunCosts {
  readonly started: number;
  private readonly budget: Spend | undefined;
  private readonly at: Spend;

  /** `budget`: the LLM budget's live state, none for a model-free strategy. */
  constructor(budget: Spend | undefined, started = performance.now()) {
    this.started = started;
    this.budget = budget;
    this.at = budget
      ? {
          llmCalls: budget.llmCalls,
          cachedCalls: budget.cachedCalls,
          promptTokens: budget.promptTokens,
          completionTokens: budget.completionTokens,
          dollars: budget.dollars,
          waitMs: budget.waitMs,
        }
      : { llmCalls: 0, cachedCalls: 0, promptTokens: 0, completionTokens: 0, dollars: 0, waitMs: 0 };
  }

  /** Counts test runs a strategy made itself (coverage, instrumented runs). */
  static countTests(cost: Outcome["cost"], runs: number, durationMs: number): void {
    cost.testRuns += runs;
    cost.testSeconds += durationMs / 1000;
  }

  /** Adds the model's spend since the start to `cost` (a step after the run, e.g. the behaviour check). */
  addModelSpend(cost: Outcome["cost"]): void {
    const s = this.budget ?? this.at;
    cost.llmCalls += s.llmCalls - this.at.llmCalls;
    cost.cachedCalls += s.cachedCalls - this.at.cachedCalls;
    cost.promptTokens += s.promptTokens - this.at.promptTokens;
    cost.completionTokens += s.completionTokens - this.at.completionTokens;
    cost.dollars += s.dollars - this.at.dollars;
    cost.llmSeconds += (s.waitMs - this.at.waitMs) / 1000;
  }

  /** Fills the model's spend and the wall time; test seconds to the millisecond. */
  settle(cost: Outcome["cost"]): void {
    const s = this.budget ?? this.at;
    cost.llmCalls = s.llmCalls - this.at.llmCalls;
    cost.cachedCalls = s.cachedCalls - this.at.cachedCalls;
    cost.promptTokens = s.promptTokens - this.at.promptTokens;
    cost.completionTokens = s.completionTokens - this.at.completionTokens;
    cost.dollars = s.dollars - this.at.dollars;
    cost.llmSeconds = (s.waitMs - this.at.waitMs) / 1000;
    cost.wallSeconds = (performance.now() - this.started) / 1000;
    cost.testSeconds = Math.round(cost.testSeconds * 1000) / 1000;
  }
}
