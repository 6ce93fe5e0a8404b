// What one task cost in model calls and time, as `autogen fix` and `autogen eval` print it:
// calls that reached the model by stage, answers a cache served (not billed), tokens, the
// seconds from the job's start (and from its baseline run's end) to its first model call, and
// the seconds spent in tests.
import type { BudgetState } from "../llm/budget.ts";

export type ModelCallFigures = {
  calls: number;
  callsByStage: Record<string, number>;
  cachedCalls: number;
  promptTokens: number;
  completionTokens: number;
  dollars: number;
  /** From the model client's start (the job's) to the first call that reached the model; null: no call. */
  firstCallSeconds: number | null;
  /** From the end of the baseline run (the job ready for the model) to the first call; null: no call or no mark. */
  firstCallAfterBaselineSeconds: number | null;
};

export function modelCallFigures(state: BudgetState): ModelCallFigures {
  return {
    calls: state.llmCalls,
    callsByStage: { ...state.callsByStage },
    cachedCalls: state.cachedCalls,
    promptTokens: state.promptTokens,
    completionTokens: state.completionTokens,
    dollars: state.dollars,
    firstCallSeconds: state.firstCallAt === undefined ? null : round((state.firstCallAt - state.startedAt) / 1000),
    firstCallAfterBaselineSeconds:
      state.firstCallAt === undefined || state.readyAt === undefined
        ? null
        : round(Math.max(0, state.firstCallAt - state.readyAt) / 1000),
  };
}

export type TaskFigures = {
  model?: ModelCallFigures | undefined;
  testSeconds: number;
  /** `autogen eval`: did the hidden tests pass on the final code. */
  hiddenTestsPassed?: boolean | undefined;
};

/** One line: "model: 4 calls (plan 1, …); 12345 prompt + 678 completion tokens; first call after 3.2 s; tests 9.5 s". */
export function formatTaskFigures(figures: TaskFigures): string {
  const { model } = figures;
  const parts: string[] = [];
  if (model) {
    const stages = Object.entries(model.callsByStage).map(([stage, n]) => `${stage} ${n}`);
    parts.push(
      `model: ${model.calls} ${model.calls === 1 ? "call" : "calls"}${stages.length > 0 ? ` (${stages.join(", ")})` : ""}`,
    );
    if (model.cachedCalls > 0) parts.push(`${model.cachedCalls} answered from a cache (not billed)`);
    parts.push(`${model.promptTokens} prompt + ${model.completionTokens} completion tokens`);
    parts.push(
      model.firstCallSeconds === null
        ? "no model call"
        : `first model call after ${model.firstCallSeconds.toFixed(1)} s${model.firstCallAfterBaselineSeconds === null ? "" : ` (${model.firstCallAfterBaselineSeconds.toFixed(1)} s after the baseline)`}`,
    );
  } else {
    parts.push("model: none");
  }
  parts.push(`tests ${figures.testSeconds.toFixed(1)} s`);
  if (figures.hiddenTestsPassed !== undefined)
    parts.push(`hidden tests ${figures.hiddenTestsPassed ? "pass" : "fail"}`);
  return parts.join("; ");
}

function round(seconds: number): number {
  return Math.round(seconds * 1000) / 1000;
}
