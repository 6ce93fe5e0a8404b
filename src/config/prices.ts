// Model prices in US dollars per million tokens, for estimating spend before the invoice
// does. Published list prices; a server can override or add models (AUTOGEN_PRICES).
import { z } from "zod";

export const priceTableSchema = z.record(
  z.string().min(1),
  z.strictObject({ input: z.number().min(0), cachedInput: z.number().min(0), output: z.number().min(0) }),
);
export type Price = z.infer<typeof priceTableSchema>[string];

export const DEFAULT_PRICES: Record<string, Price> = {
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
};

/** Unknown models (local servers) cost nothing unless a price is configured. */
export function costOf(
  model: string,
  usage: { promptTokens: number; cachedTokens: number; completionTokens: number },
  prices: Record<string, Price> = DEFAULT_PRICES,
): number {
  const price = prices[model];
  if (!price) return 0;
  const uncached = Math.max(0, usage.promptTokens - usage.cachedTokens);
  return (
    (uncached * price.input + usage.cachedTokens * price.cachedInput + usage.completionTokens * price.output) /
    1_000_000
  );
}

/** The built-in table plus AUTOGEN_PRICES (JSON) from the environment, if set. */
export function pricesFromEnv(env: NodeJS.ProcessEnv): Record<string, Price> {
  const text = env.AUTOGEN_PRICES?.trim();
  if (!text) return DEFAULT_PRICES;
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new Error(
      "AUTOGEN_PRICES is not JSON: set it to a JSON object of model names to {input, cachedInput, output} dollars per million tokens",
    );
  }
  const parsed = priceTableSchema.safeParse(data);
  if (!parsed.success)
    throw new Error(
      `AUTOGEN_PRICES is invalid (${parsed.error.issues[0]?.path.join(".")}: ${parsed.error.issues[0]?.message}): each model needs input, cachedInput and output prices, in dollars per million tokens`,
    );
  return { ...DEFAULT_PRICES, ...parsed.data };
}
