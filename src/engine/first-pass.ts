// The model-free template pass beside an LLM strategy. The model starts at once: its own
// stages (plan, verify, implement, refine) run first, and the template pass runs only if
// they end without a fix. A template edit that passes the tests ships only if the model,
// shown the issue and the diff, accepts it (a mechanical edit that fits the tests is often
// wrong on inputs they do not try). The outcome carries both passes' costs and attempts.
import type { LlmClient } from "../llm/llm-client.ts";
import { addCosts } from "./reproduce/with-reproduction.ts";
import type { Outcome, Strategy } from "./task.ts";
import { templateStrategyWith } from "./template/template-strategy.ts";

/** Stops after which a template pass has nothing to add: the tests do not load, nothing fails, the user or a budget stopped the job, the model judged no change is needed. */
const FINAL: ReadonlySet<Outcome["stopReason"]> = new Set([
  "nothing-to-fix",
  "broken-tests",
  "cancelled",
  "budget",
  "planned",
  "unsupported",
  "no-change",
]);

export function withTemplateAfter(next: Strategy, llm: LlmClient): Strategy {
  const template = templateStrategyWith({ llm });
  return {
    name: next.name,
    async run(task) {
      // Nothing fails yet: the template strategy has nothing to localise with.
      if (task.visible.kind === "reproduce") return next.run(task);
      const first = await next.run(task);
      if (first.status === "fixed" || FINAL.has(first.stopReason)) return first;
      task.onProgress?.({
        kind: "stage",
        stage: "template",
        detail: "the model found no fix: trying mechanical edits, each reviewed by the model",
      });
      // The first strategy's edits were undone, but the suite is run afresh for the second.
      const second = await template.run({ ...task, suiteBefore: undefined });
      const attempts = [
        ...first.attempts,
        ...second.attempts.map((a) => ({ ...a, index: a.index + first.attempts.length })),
      ];
      const cost = addCosts(first.cost, second.cost);
      if (second.status === "fixed") return { ...second, cost, attempts };
      // Without a fix the model's own run is the story; the template pass is one more sentence.
      const review = second.review ? { review: second.review } : {};
      return {
        ...first,
        ...review,
        message: `${first.message}; then mechanical edits: ${second.message}`,
        cost,
        attempts,
      };
    },
  };
}
