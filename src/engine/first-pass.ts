// A cheap model-free pass before the LLM: once failing tests exist (CI's failures, or the
// accepted reproduction test: `withReproduction` wraps this), the template strategy runs
// first, and only if it finds no fix does the given strategy run. The outcome carries
// both passes' costs.
import { addCosts } from "./reproduce/with-reproduction.ts";
import type { Strategy } from "./task.ts";
import { templateStrategy } from "./template/template-strategy.ts";

export function withTemplateFirst(next: Strategy): Strategy {
  return {
    name: `template+${next.name}`,
    async run(task) {
      // Nothing fails yet: the template strategy has nothing to localise with.
      if (task.visible.kind === "reproduce") return next.run(task);
      const first = await templateStrategy.run(task);
      // A broken test command stops here too: the model would only plan against a non-test.
      if (first.status === "fixed" || first.stopReason === "nothing-to-fix" || first.stopReason === "broken-tests") return first;
      const second = await next.run(task);
      return { ...second, strategy: `template+${next.name}`, cost: addCosts(first.cost, second.cost), attempts: [...first.attempts, ...second.attempts.map((a) => ({ ...a, index: a.index + first.attempts.length }))] };
    },
  };
}
