// The LlmClient port and its backend over the openai SDK: Chat Completions, streamed
// (a slow local model is waited for while it keeps sending tokens, and a request the
// server took is never sent twice), the stage's schema sent in the strongest form the
// server accepts (response-format.ts), every answer validated with zod here (some servers
// do not enforce the schema), one repair attempt with the validation error, refusals and
// length cut-offs named, the budget checked before each call, usage (or an estimate,
// labelled so) and the exchange recorded in the transcript.
import { randomInt } from "node:crypto";
import OpenAI, { APIError, APIUserAbortError } from "openai";
import { z } from "zod";
import {
  DEFAULT_LLM_TIMEOUT_SECONDS,
  DEFAULT_MAX_TOKENS_PER_CALL,
  MAX_LLM_TIMEOUT_SECONDS,
  type LlmEndpoint,
} from "../config/llm-env.ts";
import { BudgetExceededError, type Budget } from "./budget.ts";
import { extractJson } from "./extract-json.ts";
import { DEFAULT_PRICES, type Price } from "../config/prices.ts";
import { renderPrompt, type PromptVars, type Stage } from "./prompts.ts";
import {
  endpointKey,
  formatRejection,
  processResponseFormats,
  schemaInstruction,
  strictCompatible,
  type OutputMode,
  type ResponseFormatMemory,
} from "./response-format.ts";
import { retryDelayMs, sleep } from "./retry-policy.ts";
import { InFlightFailure, streamCompletion, type Completed } from "./stream-completion.ts";
import type { TranscriptSink } from "./transcript.ts";
import { CallLedger, type Message } from "./call-ledger.ts";
export class LlmStageError extends Error {
  readonly stage: Stage;
  readonly raw: string | null;
  constructor(stage: Stage, message: string, raw: string | null, errorOptions?: ErrorOptions) {
    super(`${stage}: ${message}`, errorOptions);
    this.name = "LlmStageError";
    this.stage = stage;
    this.raw = raw;
  }
}

export type LlmCallResult<T> = { value: T; attempts: number };

export type CallOptions = {
  /** Overrides the stage's temperature (SEIDR's schedule across drafts). */
  temperature?: number;
  /** Asks for at most this many completion tokens; never more than the configured cap for the stage. */
  maxCompletionTokens?: number;
  /** One of several independent answers to the same prompt (SLPW's plans): never served from a cache. */
  sample?: { index: number; of: number };
};

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
  /** The longest the server may stay silent while answering; default: the endpoint's (AUTOGEN_LLM_TIMEOUT), else 120 s. */
  timeoutMs?: number;
  /** Resends after a connection failure before any response, a 429 or a 5xx (default 2); never after a timeout. */
  maxRetries?: number;
  /** The first backoff delay, doubled for each further retry (default 500 ms). */
  retryBaseMs?: number;
  /** The completion cap for stages the endpoint gives none; default: the endpoint's (AUTOGEN_LLM_MAX_TOKENS_PER_CALL), else 4096. */
  maxCompletionTokens?: number;
  prices?: Record<string, Price>;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
  /** Secrets never reach the model: every message passes through this first. Required: build clients with jobLlmClient. */
  scrub: (text: string) => string;
  /** An embedding model on the same endpoint, for hybrid memory retrieval. */
  embeddingModel?: string | undefined;
  signal?: AbortSignal;
  /** Which response format each endpoint accepts; default: one memory for the whole process. */
  responseFormats?: ResponseFormatMemory;
  /** The seed sent with temperature-0 requests; default: random per client (one job). */
  seed?: number;
};

export class LlmTimeoutError extends LlmStageError {
  constructor(stage: Stage, message: string, raw: string | null) {
    super(stage, message, raw);
    this.name = "LlmTimeoutError";
  }
}

export function openAiLlmClient(options: OpenAiClientOptions): LlmClient {
  const { endpoint } = options;
  const idleMs = options.timeoutMs ?? endpoint.idleTimeoutMs ?? DEFAULT_LLM_TIMEOUT_SECONDS * 1000;
  const maxRetries = options.maxRetries ?? 2;
  const sdk = new OpenAI({
    baseURL: endpoint.baseURL,
    // Local servers take no key; the SDK wants a string.
    apiKey: endpoint.apiKey ?? "not-needed",
    timeout: idleMs,
    // Chat requests are retried in exchange() below, which knows when a resend is safe.
    maxRetries: 0,
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const model = endpoint.model;
  const prices = { ...DEFAULT_PRICES, ...options.prices };
  const formats = options.responseFormats ?? processResponseFormats;
  const formatKey = endpointKey(endpoint.baseURL, model);
  const { scrub } = options;
  // A cache keyed by the request body (a caching proxy, a bridge that answers a resent body
  // once) must not serve one job the answers of another, nor one sample another's: each job
  // sends its own seed, and each sampled request (temperature > 0) a seed of its own.
  const jobSeed = options.seed ?? randomInt(1, 2 ** 31 - 2 ** 20);
  let samplesSent = 0;
  const seedFor = (temperature: number) => (temperature > 0 ? jobSeed + ++samplesSent : jobSeed);
  const ledger = new CallLedger({ budget: options.budget, transcript: options.transcript, model, prices });

  function stageCap(stage: Stage, asked: number | undefined): number {
    const cap =
      endpoint.maxTokens?.byStage[stage] ??
      options.maxCompletionTokens ??
      endpoint.maxTokens?.default ??
      DEFAULT_MAX_TOKENS_PER_CALL;
    return Math.min(cap, asked ?? cap);
  }

  async function exchange(
    stage: Stage,
    outgoing: Message[],
    temperature: number,
    jsonSchema: Record<string, unknown>,
    attempt: number,
    maxTokens: number,
    seen?: Completed,
  ): Promise<Completed & { cached?: true }> {
    options.budget.ensureRoom();
    options.budget.startCall();
    const started = performance.now();
    const seed = seedFor(temperature);
    for (let retry = 0; ;) {
      const known = formats.get(formatKey);
      const mode = known.mode;
      const strict = mode === "json_schema" && !known.strictRejected && strictCompatible(jsonSchema);
      const sent = withSchema(outgoing, mode, jsonSchema).map((m) => ({ ...m, content: scrub(m.content) }));
      try {
        const result = await streamCompletion(
          sdk,
          {
            model,
            messages: sent,
            temperature,
            seed,
            max_completion_tokens: options.budget.completionAllowance(maxTokens),
            ...(mode === "json_schema"
              ? {
                  response_format: {
                    type: "json_schema",
                    json_schema: { name: stage.replaceAll("-", "_"), schema: jsonSchema, strict },
                  },
                }
              : {}),
            ...(mode === "json_object" ? { response_format: { type: "json_object" } } : {}),
          },
          { idleMs, deadlineMs: options.budget.timeLeftMs(), maxTokens, signal: options.signal },
        );
        if (ledger.servedFromCache(sent, result, seen)) {
          ledger.cached(stage, attempt, sent, mode, result, started);
          return { ...result, cached: true };
        }
        ledger.paid(stage, attempt, sent, mode, result, started);
        return result;
      } catch (error) {
        const rejection = formatRejection(error, strict);
        if (rejection === "strict-schema") {
          formats.rejectStrict(formatKey);
          continue;
        }
        if (rejection === "format" && mode !== "prompt" && formats.degrade(formatKey, mode)) continue;
        if (error instanceof InFlightFailure) {
          // The server took the request and worked on it: count it, keep what it sent, never resend.
          const message = inFlightMessage(error, idleMs, endpoint.baseURL, options.budget.state.caps.minutes);
          ledger.paid(stage, attempt, sent, mode, error.partial, started, message);
          if (error.kind === "deadline") throw new BudgetExceededError("minutes", message);
          if (error.kind === "idle") throw new LlmTimeoutError(stage, message, error.partial.answer);
          throw new LlmStageError(stage, message, error.partial.answer);
        }
        if (error instanceof APIUserAbortError || options.signal?.aborted) throw error;
        const delay = retry < maxRetries ? retryDelayMs(error, retry, options.retryBaseMs ?? 500) : undefined;
        if (delay !== undefined) {
          retry++;
          await sleep(delay, options.signal);
          continue;
        }
        const message = failureMessage(error, endpoint.baseURL, retry);
        ledger.failed(stage, attempt, sent, mode, started, message);
        throw new LlmStageError(stage, message, null, { cause: error });
      }
    }
  }

  const embeddingModel = options.embeddingModel;
  return {
    budget: options.budget,
    model,
    embed: embeddingModel
      ? async (text: string) => {
          // Embeddings are quick and idempotent: the SDK's own retries are safe here.
          const response = await sdk.embeddings.create(
            { model: embeddingModel, input: scrub(text).slice(0, 8000) },
            { maxRetries, ...(options.signal ? { signal: options.signal } : {}) },
          );
          const vector = response.data[0]?.embedding;
          if (!vector) throw new Error("the embeddings endpoint returned no vector");
          return vector;
        }
      : undefined,
    async call<T>(
      stage: Stage,
      vars: PromptVars,
      schema: z.ZodType<T>,
      callOptions: CallOptions = {},
    ): Promise<LlmCallResult<T>> {
      const prompt = renderPrompt(stage, vars);
      const temperature = callOptions.temperature ?? prompt.temperature;
      const { $schema: _dialect, ...jsonSchema } = z.toJSONSchema(schema, { io: "output" }) as Record<string, unknown>;
      const maxTokens = stageCap(stage, callOptions.maxCompletionTokens);
      const { sample } = callOptions;
      // Said last, after the stable part of the prompt, so a provider's prompt cache still applies.
      const sampleNote = sample
        ? `\n\nThis is sample ${sample.index} of ${sample.of}: an independent attempt; the others are asked for separately.`
        : "";
      const messages: Message[] = [
        { role: "system", content: prompt.system },
        { role: "user", content: prompt.user + sampleNote },
      ];
      const sampled = sample !== undefined || temperature > 0;
      for (let attempt = 1; attempt <= 2; attempt++) {
        let completed = await exchange(stage, messages, temperature, jsonSchema, attempt, maxTokens);
        if (completed.cached && sampled) {
          // A cache that ignores the seed answered a sample with an earlier answer: ask once more,
          // in words it cannot have seen, and refuse a second cached answer.
          const fresh = [
            ...messages.slice(0, -1),
            {
              ...(messages.at(-1) as Message),
              content: `${messages.at(-1)?.content ?? ""}\n\n(Fresh answer ${randomInt(1, 1e9)}.)`,
            },
          ];
          completed = await exchange(stage, fresh, temperature, jsonSchema, attempt, maxTokens, completed);
          if (completed.cached)
            throw new LlmStageError(
              stage,
              `a response cache in front of the model at ${endpoint.baseURL} answered a sampled request (temperature ${temperature}) with an earlier answer twice; turn that cache off for requests with temperature above 0`,
              completed.answer,
            );
        }
        const { answer, refusal, finishReason } = completed;
        if (refusal) throw new LlmStageError(stage, `the model refused: ${refusal}`, answer);
        if (finishReason === "length")
          throw new LlmStageError(
            stage,
            `the answer was cut off at the completion token limit (${maxTokens}; AUTOGEN_LLM_MAX_TOKENS_PER_CALL raises it)`,
            answer,
          );
        const problem = validate(answer, schema);
        if (problem.ok) return { value: problem.value, attempts: attempt };
        if (attempt === 2)
          throw new LlmStageError(
            stage,
            `the answer does not match the schema after one repair: ${problem.error}`,
            answer,
          );
        // One repair: show the model its answer and what is wrong with it.
        messages.push(
          { role: "assistant", content: answer ?? "" },
          {
            role: "user",
            content: `That answer is not valid: ${problem.error}. Reply again with one JSON object that matches the schema exactly.`,
          },
        );
      }
      throw new LlmStageError(stage, "unreachable", null);
    },
  };
}

/** Without the server's schema support, the model learns the schema from the prompt. */
function withSchema(messages: Message[], mode: OutputMode, jsonSchema: Record<string, unknown>): Message[] {
  if (mode === "json_schema") return messages;
  const [first, ...rest] = messages;
  const instruction = schemaInstruction(jsonSchema);
  return first?.role === "system"
    ? [{ ...first, content: `${first.content}\n\n${instruction}` }, ...rest]
    : [{ role: "system", content: instruction }, ...messages];
}

function seconds(ms: number): string {
  return `${Number((ms / 1000).toFixed(3))} s`;
}

function inFlightMessage(error: InFlightFailure, idleMs: number, baseURL: string, minutes: number): string {
  const got =
    error.partial.chunks > 0 ? `after ${error.partial.chunks} chunks of the answer` : "before any of the answer";
  if (error.kind === "idle")
    return `the model server at ${baseURL} went silent for ${seconds(idleMs)} ${got} (AUTOGEN_LLM_TIMEOUT); the request was not sent again, since the server may still be working on it. Raise AUTOGEN_LLM_TIMEOUT (at most ${MAX_LLM_TIMEOUT_SECONDS} seconds) for a slow model, or check the server`;
  if (error.kind === "deadline") return `the job's ${minutes} minutes ran out while the model was answering (${got})`;
  return `the connection to the model server at ${baseURL} broke ${got}: ${error.message}; not sent again, since the server may have done the work`;
}

function failureMessage(error: unknown, baseURL: string, retries: number): string {
  const after = retries > 0 ? ` (after ${retries} ${retries === 1 ? "retry" : "retries"})` : "";
  if (error instanceof APIError && error.status !== undefined)
    return `the model server at ${baseURL} answered ${error.message}${after}`;
  return `could not reach the model server at ${baseURL}: ${error instanceof Error ? error.message : String(error)}${after}`;
}

function validate<T>(
  answer: string | null,
  schema: z.ZodType<T>,
): { ok: true; value: T } | { ok: false; error: string } {
  if (!answer) return { ok: false, error: "the answer was empty" };
  const extracted = extractJson(answer);
  if (!extracted.ok) return extracted;
  const parsed = schema.safeParse(extracted.value);
  if (parsed.success) return { ok: true, value: parsed.data };
  return {
    ok: false,
    error: parsed.error.issues.map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`).join("; "),
  };
}
