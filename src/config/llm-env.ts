// The LLM endpoint from the environment: one rule for the server and for the commands
// that run without the App's credentials (`autogen-bot fix`, `autogen-bot eval`), including how
// long a silent model server is waited for and how long one answer may be.
import { z } from "zod";
import { STAGES, type Stage } from "./llm-stages.ts";

/** The most completion tokens one call may ask for: one value for every stage, and per-stage exceptions. */
export type CompletionTokenCaps = { default: number; byStage: Partial<Record<Stage, number>> };

export type LlmEndpoint = {
  baseURL: string;
  apiKey: string | undefined;
  model: string;
  /** How long the server may stay silent while answering (AUTOGEN_LLM_TIMEOUT); unset: the default. */
  idleTimeoutMs?: number;
  /** AUTOGEN_LLM_MAX_TOKENS_PER_CALL; unset: the default. */
  maxTokens?: CompletionTokenCaps;
};

export const DEFAULT_MODEL = "gpt-4o-mini";
export const DEFAULT_LLM_TIMEOUT_SECONDS = 120;
/** Node's fetch drops a connection that stays silent for five minutes (undici's headers and body timeouts), so a longer wait could never happen. */
export const MAX_LLM_TIMEOUT_SECONDS = 300;
export const DEFAULT_MAX_TOKENS_PER_CALL = 4096;
const MIN_TOKENS_PER_CALL = 16;
const MAX_TOKENS_PER_CALL = 1_000_000;

/** What the LLM tuning variables are for; the server's ENV_HELP and error lines use the same text. */
export const LLM_ENV_HELP = {
  AUTOGEN_LLM_TIMEOUT: `how many seconds the model server may stay silent while answering, before its first token or between two (answers are streamed, so a long answer is not cut off and a silent request is never sent twice); a whole number from 1 to ${MAX_LLM_TIMEOUT_SECONDS} (default ${DEFAULT_LLM_TIMEOUT_SECONDS}); raise it for local models on a CPU, whose first token can take minutes`,
  AUTOGEN_LLM_MAX_TOKENS_PER_CALL: `the most completion tokens one model call may ask for (default ${DEFAULT_MAX_TOKENS_PER_CALL}), optionally with per-stage values after it, e.g. 4096,implement=8192,refine=8192; each a whole number from ${MIN_TOKENS_PER_CALL} to ${MAX_TOKENS_PER_CALL}, stages: ${STAGES.join(", ")}; the job's token budget can lower it further`,
} as const;

export const llmTimeoutSchema = z.coerce.number().int().min(1).max(MAX_LLM_TIMEOUT_SECONDS);

const tokenCount = z.coerce.number().int().min(MIN_TOKENS_PER_CALL).max(MAX_TOKENS_PER_CALL);

/** "4096", "4096,implement=8192" or "implement=8192" (the others keep the default). */
export const maxTokensPerCallSchema = z.string().transform((text, ctx): CompletionTokenCaps => {
  const caps: CompletionTokenCaps = { default: DEFAULT_MAX_TOKENS_PER_CALL, byStage: {} };
  const parts = text.split(",").map((p) => p.trim());
  for (const [index, part] of parts.entries()) {
    const [name, value] = part.includes("=") ? part.split("=", 2).map((s) => s.trim()) : [undefined, part];
    const count = tokenCount.safeParse(value);
    if (!count.success) {
      ctx.addIssue({
        code: "custom",
        message: `${part || "(empty)"}: not a whole number from ${MIN_TOKENS_PER_CALL} to ${MAX_TOKENS_PER_CALL}`,
      });
      return z.NEVER;
    }
    if (name === undefined) {
      if (index !== 0) {
        ctx.addIssue({ code: "custom", message: `${part}: only the first value may be without a stage` });
        return z.NEVER;
      }
      caps.default = count.data;
    } else if ((STAGES as readonly string[]).includes(name)) {
      caps.byStage[name as Stage] = count.data;
    } else {
      ctx.addIssue({ code: "custom", message: `${name}: not a stage` });
      return z.NEVER;
    }
  }
  return caps;
});

export class LlmEnvError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "LlmEnvError";
  }
}

export type LlmTuning = { idleTimeoutMs?: number; maxTokens?: CompletionTokenCaps };

export function llmEndpoint(
  baseURL: string | undefined,
  apiKey: string | undefined,
  model: string,
  tuning: LlmTuning = {},
): LlmEndpoint | undefined {
  // Only the values that were set: the client applies the defaults.
  const extra = {
    ...(tuning.idleTimeoutMs !== undefined ? { idleTimeoutMs: tuning.idleTimeoutMs } : {}),
    ...(tuning.maxTokens ? { maxTokens: tuning.maxTokens } : {}),
  };
  if (baseURL) return { baseURL, apiKey, model, ...extra };
  if (apiKey) return { baseURL: "https://api.openai.com/v1", apiKey, model, ...extra };
  return undefined;
}

/** Throws LlmEnvError naming the variable and what to put there when a tuning value is malformed. */
export function llmTuningFromEnv(env: NodeJS.ProcessEnv): LlmTuning {
  const tuning: LlmTuning = {};
  const timeout = env.AUTOGEN_LLM_TIMEOUT?.trim();
  if (timeout) {
    const parsed = llmTimeoutSchema.safeParse(timeout);
    if (!parsed.success)
      throw new LlmEnvError(
        `AUTOGEN_LLM_TIMEOUT is invalid (got ${JSON.stringify(timeout)}): set it to ${LLM_ENV_HELP.AUTOGEN_LLM_TIMEOUT}.`,
      );
    tuning.idleTimeoutMs = parsed.data * 1000;
  }
  const maxTokens = env.AUTOGEN_LLM_MAX_TOKENS_PER_CALL?.trim();
  if (maxTokens) {
    const parsed = maxTokensPerCallSchema.safeParse(maxTokens);
    if (!parsed.success)
      throw new LlmEnvError(
        `AUTOGEN_LLM_MAX_TOKENS_PER_CALL is invalid (${parsed.error.issues[0]?.message ?? "malformed"}): set it to ${LLM_ENV_HELP.AUTOGEN_LLM_MAX_TOKENS_PER_CALL}.`,
      );
    tuning.maxTokens = parsed.data;
  }
  return tuning;
}

export function llmEndpointFromEnv(env: NodeJS.ProcessEnv): LlmEndpoint | undefined {
  return llmEndpoint(
    env.AUTOGEN_LLM_BASE_URL?.trim() || undefined,
    env.OPENAI_API_KEY?.trim() || undefined,
    env.AUTOGEN_LLM_MODEL?.trim() || DEFAULT_MODEL,
    llmTuningFromEnv(env),
  );
}
