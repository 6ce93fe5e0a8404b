// A cheap model-free pass before the LLM: the template strategy runs first, and only if
// it finds no fix does the given strategy run. The outcome carries both passes' costs.
import type { Outcome, Strategy } from "./task.ts";
import { templateStrategy } from "./template/template-strategy.ts";

export function withTemplateFirst(next: Strategy): Strategy {
  return {
    name: `template+${next.name}`,
    async run(task) {
      const first = await templateStrategy.run(task);
      if (first.status === "fixed" || first.stopReason === "nothing-to-fix") return first;
      const second = await next.run(task);
      return { ...second, strategy: `template+${next.name}`, cost: addCosts(first.cost, second.cost), attempts: [...first.attempts, ...second.attempts.map((a) => ({ ...a, index: a.index + first.attempts.length }))] };
    },
  };
}

function addCosts(a: Outcome["cost"], b: Outcome["cost"]): Outcome["cost"] {
  const out = { ...a };
  for (const key of Object.keys(out) as Array<keyof Outcome["cost"]>) out[key] = a[key] + b[key];
  return out;
}
