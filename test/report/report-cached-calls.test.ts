// Answers a cache in front of the model served again are named in the report, apart from
// the calls billed; the run's cost counts them from the model budget (RunCosts).
import { describe, expect, it } from "vitest";
import { RunCosts } from "../../src/engine/run/run-costs.ts";
import { emptyOutcome } from "../../src/engine/task.ts";
import { Budget } from "../../src/llm/budget.ts";
import { renderReport } from "../../src/report/render-report.ts";

describe("cached model answers in the report", () => {
  it("counts a cache's answers apart from the billed calls and says so in the Cost section", () => {
    const budget = new Budget({ llmCalls: 10, tokens: 10_000, dollars: 1, minutes: 5 });
    budget.record({ promptTokens: 100, completionTokens: 20, cachedTokens: 0 }, 0.001, 0, "plan");
    const costs = new RunCosts(budget.state);
    budget.record({ promptTokens: 300, completionTokens: 30, cachedTokens: 0 }, 0.002, 0, "verify-plan");
    budget.recordCached();
    budget.recordCached();
    const outcome = emptyOutcome("slpw");
    costs.settle(outcome.cost);

    expect(outcome.cost).toMatchObject({ llmCalls: 1, cachedCalls: 2, promptTokens: 300, completionTokens: 30 });
    const report = renderReport(outcome, { title: "autogen: x" });
    expect(report).toContain(
      "LLM calls 1, tokens 330 (estimated $0.0020); 2 more answered from a cache in front of the model (earlier answers sent again: not billed, not counted above)",
    );
  });

  it("says nothing of a cache when none answered", () => {
    const outcome = emptyOutcome("lpw");
    outcome.cost.llmCalls = 3;
    expect(renderReport(outcome, { title: "autogen: x" })).not.toContain("cache");
  });
});
