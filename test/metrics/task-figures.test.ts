// The per-task figures line: calls that reached the model by stage, cached answers apart,
// tokens, seconds from the job's start (and from the baseline's end) to its first model call, seconds in tests, verdict.
import { describe, expect, it } from "vitest";
import { Budget } from "../../src/llm/budget.ts";
import { formatTaskFigures, modelCallFigures } from "../../src/metrics/task-figures.ts";

describe("task figures", () => {
  it("counts calls by stage, keeps cached answers apart, and times the first call from the job's start", () => {
    let clock = 1_000_000;
    const budget = new Budget({ llmCalls: 10, tokens: 10_000, dollars: 1, minutes: 5 }, () => clock);
    clock += 2_000;
    budget.markReady();
    clock += 1_250;
    budget.startCall();
    budget.record({ promptTokens: 900, completionTokens: 40, cachedTokens: 0 }, 0.01, 500, "plan");
    clock += 1_000;
    budget.startCall();
    budget.record({ promptTokens: 800, completionTokens: 60, cachedTokens: 700 }, 0.01, 500, "plan");
    budget.startCall();
    budget.recordCached(3);
    budget.record({ promptTokens: 1000, completionTokens: 100, cachedTokens: 0 }, 0.01, 500, "implement");

    const figures = modelCallFigures(budget.state);
    expect(figures).toEqual({
      calls: 3,
      callsByStage: { plan: 2, implement: 1 },
      cachedCalls: 1,
      promptTokens: 2700,
      completionTokens: 200,
      dollars: 0.03,
      firstCallSeconds: 3.25,
      firstCallAfterBaselineSeconds: 1.25,
    });
    expect(formatTaskFigures({ model: figures, testSeconds: 12.34, hiddenTestsPassed: false })).toBe(
      "model: 3 calls (plan 2, implement 1); 1 answered from a cache (not billed); 2700 prompt + 200 completion tokens; first model call after 3.3 s (1.3 s after the baseline); tests 12.3 s; hidden tests fail",
    );
  });

  it("says so when no call reached the model, and when the strategy has no model", () => {
    const budget = new Budget({ llmCalls: 10, tokens: 10_000, dollars: 1, minutes: 5 });
    expect(formatTaskFigures({ model: modelCallFigures(budget.state), testSeconds: 1 })).toBe(
      "model: 0 calls; 0 prompt + 0 completion tokens; no model call; tests 1.0 s",
    );
    expect(formatTaskFigures({ testSeconds: 2, hiddenTestsPassed: true })).toBe(
      "model: none; tests 2.0 s; hidden tests pass",
    );
  });
});
