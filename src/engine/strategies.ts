// The strategies selectable by name (repo config `strategy.name`, CLI `--strategy`).
import type { Strategy } from "./task.ts";
import { templateStrategy } from "./template/template-strategy.ts";

const STRATEGIES: Record<string, Strategy> = { template: templateStrategy };

/** Strategies that need an LLM endpoint; they arrive with the LLM layer. */
const NEEDS_MODEL = ["lpw", "slpw", "seidr", "direct"];

export function strategyByName(name: string): Strategy {
  const strategy = STRATEGIES[name];
  if (strategy) return strategy;
  if (NEEDS_MODEL.includes(name)) throw new Error(`strategy "${name}" needs the LLM layer, which this version does not include yet; use --strategy template`);
  throw new Error(`unknown strategy "${name}"; available: ${Object.keys(STRATEGIES).join(", ")}`);
}
