// Model prices in US dollars per million tokens, for estimating spend before the invoice
// does. Published list prices; a server can override or add models (AUTOGEN_PRICES).
export type Price = { input: number; cachedInput: number; output: number };

export const DEFAULT_PRICES: Record<string, Price> = {
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
};

/** Unknown models (local servers) cost nothing unless a price is configured. */
export function costOf(model: string, usage: { promptTokens: number; cachedTokens: number; completionTokens: number }, prices: Record<string, Price> = DEFAULT_PRICES): number {
  const price = prices[model];
  if (!price) return 0;
  const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens);
  return (uncached * price.input + usage.cachedTokens * price.cachedInput + usage.completionTokens * price.output) / 1_000_000;
}
