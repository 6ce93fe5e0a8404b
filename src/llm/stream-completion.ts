// One Chat Completions request, streamed: the server sends tokens as it goes, so a slow
// model is waited for as long as it keeps talking and given up on only when it falls
// silent for the idle timeout. Once the server has the request, a failure is an
// InFlightFailure, which the caller must never resend: the answer may still be in the making.
import { APIConnectionTimeoutError, APIUserAbortError, type OpenAI } from "openai";
import type { ChatCompletion, ChatCompletionCreateParamsStreaming } from "openai/resources/chat/completions";

export type Usage = { promptTokens: number; completionTokens: number; cachedTokens: number };

export type Completed = {
  /** The completion's id as the server sent it (a cache in front of the model sends an earlier one again). */
  id?: string | undefined;
  answer: string | null;
  refusal: string | null;
  finishReason: string | null;
  /** As the server reported it (the last chunk, with stream_options.include_usage); undefined when it sent none. */
  usage: Usage | undefined;
  /** Chunks that carried answer text: a lower bound on the completion tokens. */
  chunks: number;
};

export type InFlightKind = "idle" | "deadline" | "broken";

export class InFlightFailure extends Error {
  readonly kind: InFlightKind;
  readonly partial: Completed;
  constructor(kind: InFlightKind, partial: Completed, cause?: unknown) {
    super(
      kind === "broken"
        ? `the answer stream broke off${cause instanceof Error ? ` (${cause.message})` : ""}`
        : `stopped waiting (${kind})`,
      { cause },
    );
    this.name = "InFlightFailure";
    this.kind = kind;
    this.partial = partial;
  }
}

export type StreamOptions = {
  /** The longest silence allowed: before the response, before the first chunk, between chunks. */
  idleMs: number;
  /** The total time left (the job's wall-clock budget). */
  deadlineMs: number;
  /** The completion cap that was asked for; enforced here too, for servers that ignore it. */
  maxTokens: number;
  signal?: AbortSignal | undefined;
};

type Body = Omit<ChatCompletionCreateParamsStreaming, "stream" | "stream_options">;

export async function streamCompletion(sdk: OpenAI, body: Body, options: StreamOptions): Promise<Completed> {
  const local = new AbortController();
  let stopped: "idle" | "deadline" | undefined;
  let idleTimer: ReturnType<typeof setTimeout> | undefined;
  const arm = () => {
    clearTimeout(idleTimer);
    idleTimer = setTimeout(() => {
      stopped ??= "idle";
      local.abort();
    }, options.idleMs);
  };
  const deadline = setTimeout(() => {
    stopped ??= "deadline";
    local.abort();
  }, options.deadlineMs);
  const signal = options.signal ? AbortSignal.any([options.signal, local.signal]) : local.signal;
  const partial: Completed = { answer: null, refusal: null, finishReason: null, usage: undefined, chunks: 0 };
  let accepted = false;
  arm();
  try {
    const { data: stream, response } = await sdk.chat.completions
      // The SDK's own timeout only covers the wait for the response headers; ours fires first.
      .create(
        { ...body, stream: true, stream_options: { include_usage: true } },
        { signal, timeout: options.idleMs + 1000, maxRetries: 0 },
      )
      .withResponse();
    accepted = true;
    arm();
    if (!(response.headers.get("content-type") ?? "").includes("text/event-stream")) {
      // A server that ignores `stream` answers with one whole completion.
      const completion = (await response.json()) as ChatCompletion;
      const choice = completion.choices[0];
      return {
        id: completion.id,
        answer: choice?.message.content ?? null,
        refusal: choice?.message.refusal ?? null,
        finishReason: choice?.finish_reason ?? null,
        usage: usageOf(completion.usage),
        chunks: 0,
      };
    }
    let content = "";
    let refusal = "";
    for await (const chunk of stream) {
      arm();
      if (chunk.usage) partial.usage = usageOf(chunk.usage);
      const choice = chunk.choices[0];
      if (!choice) continue;
      // Keep-alive chunks (no choices) may carry an id of their own.
      partial.id = chunk.id;
      if (choice.delta.content) {
        content += choice.delta.content;
        partial.chunks++;
      }
      if (choice.delta.refusal) {
        refusal += choice.delta.refusal;
        partial.chunks++;
      }
      if (choice.finish_reason) partial.finishReason = choice.finish_reason;
      partial.answer = content || null;
      partial.refusal = refusal || null;
      if (partial.chunks > options.maxTokens + 16) {
        // The server ignored max_completion_tokens (older llama.cpp and Ollama read only max_tokens).
        partial.finishReason = "length";
        break; // leaving the loop aborts the request
      }
    }
    // The SDK ends the iteration quietly when the request is aborted.
    if (stopped) throw new InFlightFailure(stopped, partial);
    if (options.signal?.aborted) throw new APIUserAbortError();
    if (!partial.finishReason && !partial.answer && !partial.refusal)
      throw new InFlightFailure("broken", partial, new Error("the stream ended without an answer"));
    return partial;
  } catch (error) {
    if (error instanceof InFlightFailure) throw error;
    if (stopped) throw new InFlightFailure(stopped, partial);
    if (error instanceof APIConnectionTimeoutError) throw new InFlightFailure("idle", partial, error);
    if (accepted && !options.signal?.aborted) throw new InFlightFailure("broken", partial, error);
    throw error;
  } finally {
    clearTimeout(idleTimer);
    clearTimeout(deadline);
  }
}

function usageOf(usage: ChatCompletion["usage"] | null | undefined): Usage | undefined {
  if (!usage) return undefined;
  return {
    promptTokens: usage.prompt_tokens ?? 0,
    completionTokens: usage.completion_tokens ?? 0,
    cachedTokens: usage.prompt_tokens_details?.cached_tokens ?? 0,
  };
}
