// A job's model client that first checks, before every call, that the work is still
// wanted (the issue unchanged, the pull request's head where it was, no stop request).
import type { LlmClient } from "../llm/llm-client.ts";

export function guardedLlm(base: LlmClient | undefined, ensureCurrent: () => Promise<void>): LlmClient | undefined {
  if (!base) return undefined;
  return {
    ...base,
    budget: base.budget,
    model: base.model,
    call: async (stage, vars, schema, options) => (await ensureCurrent(), base.call(stage, vars, schema, options)),
  };
}
