// The LlmClient port and its backend over the openai SDK: Chat Completions with a JSON
// schema response format (which OpenAI-compatible servers implement), every answer
// validated with zod here (some servers do not enforce the schema), one repair attempt
// with the validation error, refusals and length cut-offs named, the budget checked
// before each call, usage and the exchange recorded in the transcript.
import OpenAI from "openai";
import { z } from "zod";
import type { LlmEndpoint } from "../config/llm-env.ts";
import type { Budget } from "./budget.ts";
import { costOf, DEFAULT_PRICES, type Price } from "./prices.ts";
import { renderPrompt, type PromptVars, type Stage } from "./prompts.ts";
import type { TranscriptSink } from "./transcript.ts";

export class LlmStageError extends Error {
  readonly stage: Stage;
  readonly raw: string | null;
  constructor(stage: Stage, message: string, raw: string | null) {
    super(`${stage}: ${message}`);
    this.name = "LlmStageError";
    this.stage = stage;
    this.raw = raw;
  }
}

export type LlmCallResult<T> = { value: T; attempts: number };

export type CallOptions = { /** Overrides the stage's temperature (SEIDR's schedule across drafts). */ temperature?: number };

export type LlmClient = {
  call<T>(stage: Stage, vars: PromptVars, schema: z.ZodType<T>, options?: CallOptions): Promise<LlmCallResult<T>>;
  /** Present when the provider offers embeddings (an embedding model is configured). */
  embed?: ((text: string) => Promise<number[]>) | undefined;
  readonly budget: Budget;
  readonly model: string;
};

export type OpenAiClientOptions = {
  endpoint: LlmEndpoint;
  budget: Budget;
  transcript: TranscriptSink;
  timeoutMs?: number;
  maxRetries?: number;
  maxCompletionTokens?: number;
  prices?: Record<string, Price>;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
  /** Secrets never reach the model: every message passes through this first. */
  scrub?: (text: string) => string;
  /** An embedding model on the same endpoint, for hybrid memory retrieval. */
  embeddingModel?: string | undefined;
  signal?: AbortSignal;
};

type Message = { role: "system" | "user" | "assistant"; content: string };

export function openAiLlmClient(options: OpenAiClientOptions): LlmClient {
  const sdk = new OpenAI({
    baseURL: options.endpoint.baseURL,
    // Local servers take no key; the SDK wants a string.
    apiKey: options.endpoint.apiKey ?? "not-needed",
    timeout: options.timeoutMs ?? 120_000,
    // The only retry layer: the SDK's (429, 5xx, connection errors), with its backoff.
    maxRetries: options.maxRetries ?? 2,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const model = options.endpoint.model;
  const prices = { ...DEFAULT_PRICES, ...options.prices };

  async function exchange(stage: Stage, outgoing: Message[], temperature: number, jsonSchema: Record<string, unknown>, attempt: number) {
    options.budget.ensureRoom();
    const scrub = options.scrub;
    const messages = scrub ? outgoing.map((m) => ({ ...m, content: scrub(m.content) })) : outgoing;
    const started = performance.now();
    const completion = await sdk.chat.completions.create(
      {
        model,
        messages,
        temperature,
        max_completion_tokens: options.budget.completionAllowance(options.maxCompletionTokens ?? 4096),
        response_format: { type: "json_schema", json_schema: { name: stage.replaceAll("-", "_"), schema: jsonSchema, strict: false } },
      },
      options.signal ? { signal: options.signal } : {},
    );
    const choice = completion.choices[0];
    const usage = {
      promptTokens: completion.usage?.prompt_tokens ?? 0,
      completionTokens: completion.usage?.completion_tokens ?? 0,
      cachedTokens: completion.usage?.prompt_tokens_details?.cached_tokens ?? 0,
    };
    const dollars = costOf(model, usage, prices);
    const latencyMs = Math.round(performance.now() - started);
    options.budget.record(usage, dollars, latencyMs);
    const answer = choice?.message.content ?? null;
    const refusal = choice?.message.refusal ?? null;
    const finishReason = choice?.finish_reason ?? null;
    options.transcript.write({ stage, model, attempt, messages, answer, finishReason, refusal, usage, dollars, latencyMs });
    return { answer, refusal, finishReason };
  }

  const embeddingModel = options.embeddingModel;
  return {
    budget: options.budget,
    model,
    embed: embeddingModel
      ? async (text: string) => {
          const response = await sdk.embeddings.create({ model: embeddingModel, input: (options.scrub ?? ((t: string) => t))(text).slice(0, 8000) }, options.signal ? { signal: options.signal } : {});
          const vector = response.data[0]?.embedding;
          if (!vector) throw new Error("the embeddings endpoint returned no vector");
          return vector;
        }
      : undefined,
    async call<T>(stage: Stage, vars: PromptVars, schema: z.ZodType<T>, callOptions: CallOptions = {}): Promise<LlmCallResult<T>> {
      const prompt = renderPrompt(stage, vars);
      const temperature = callOptions.temperature ?? prompt.temperature;
      const jsonSchema = z.toJSONSchema(schema, { io: "output" }) as Record<string, unknown>;
      const messages: Message[] = [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user },
      ];
      for (let attempt = 1; attempt <= 2; attempt++) {
        const { answer, refusal, finishReason } = await exchange(stage, messages, temperature, jsonSchema, attempt);
        if (refusal) throw new LlmStageError(stage, `the model refused: ${refusal}`, answer);
        if (finishReason === "length") throw new LlmStageError(stage, "the answer was cut off at the completion token limit", answer);
        const problem = validate(answer, schema);
        if (problem.ok) return { value: problem.value, attempts: attempt };
        if (attempt === 2) throw new LlmStageError(stage, `the answer does not match the schema after one repair: ${problem.error}`, answer);
        // One repair: show the model its answer and what is wrong with it.
        messages.push({ role: "assistant", content: answer ?? "" }, { role: "user", content: `That answer is not valid: ${problem.error}. Reply again with one JSON object that matches the schema exactly.` });
      }
      throw new LlmStageError(stage, "unreachable", null);
    },
  };
}

function validate<T>(answer: string | null, schema: z.ZodType<T>): { ok: true; value: T } | { ok: false; error: string } {
  if (!answer) return { ok: false, error: "the answer was empty" };
  let data: unknown;
  try {
    data = JSON.parse(answer.trim().replace(/^```(?:json)?\s*|\s*```$/g, ""));
  } catch (error) {
    return { ok: false, error: `not JSON (${(error as Error).message})` };
  }
  const parsed = schema.safeParse(data);
  if (parsed.success) return { ok: true, value: parsed.data };
  return { ok: false, error: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; ") };
}
