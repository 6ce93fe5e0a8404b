// What each exchange with the model cost, written down: the budget counts it (usage, or an
// estimate labelled so), the transcript keeps it, and an answer a cache served again is
// told apart (never billed). One ledger per client: it remembers the completions received.
import { createHash } from "node:crypto";
import { costOf, type Price } from "../config/prices.ts";
import type { Budget } from "./budget.ts";
import type { Stage } from "./prompts.ts";
import type { OutputMode } from "./response-format.ts";
import type { Completed, Usage } from "./stream-completion.ts";
import type { TranscriptSink } from "./transcript.ts";

export type Message = { role: "system" | "user" | "assistant"; content: string };

const NO_USAGE: Usage = { promptTokens: 0, completionTokens: 0, cachedTokens: 0 };

type LedgerDeps = { budget: Budget; transcript: TranscriptSink; model: string; prices: Record<string, Price> };

export class CallLedger {
  /** Completions already received (id, answer, request): the same again is a cache's answer. */
  private readonly received = new Set<string>();

  private readonly deps: LedgerDeps;

  constructor(deps: LedgerDeps) {
    this.deps = deps;
  }

  /** An answer the model gave: counted and billed (its usage, or an estimate when the server reports none). */
  paid(
    stage: Stage,
    attempt: number,
    sent: Message[],
    mode: OutputMode,
    result: Completed,
    started: number,
    error?: string,
  ) {
    const usage = result.usage ?? estimateUsage(sent, result);
    const dollars = costOf(this.deps.model, usage, this.deps.prices);
    const latencyMs = Math.round(performance.now() - started);
    this.deps.budget.record(usage, dollars, latencyMs, stage);
    this.deps.transcript.write({
      ...this.entryOf(stage, attempt, sent, mode, result, latencyMs),
      usage,
      dollars,
      ...(result.usage ? {} : { usageEstimated: true }),
      ...(error ? { error } : {}),
    });
  }

  /** An answer a cache in front of the model served again: counted apart, never billed. */
  cached(stage: Stage, attempt: number, sent: Message[], mode: OutputMode, result: Completed, started: number) {
    const latencyMs = Math.round(performance.now() - started);
    this.deps.budget.recordCached(latencyMs);
    this.deps.transcript.write({
      ...this.entryOf(stage, attempt, sent, mode, result, latencyMs),
      usage: NO_USAGE,
      dollars: 0,
      cached: true,
    });
  }

  /**
   * A request that got no answer: counted as a call with no tokens (the server did no work) and
   * written, so transcript lines still match the calls counted and a replay meets the same failure.
   */
  failed(stage: Stage, attempt: number, sent: Message[], mode: OutputMode, started: number, message: string) {
    const latencyMs = Math.round(performance.now() - started);
    this.deps.budget.record(NO_USAGE, 0, latencyMs);
    this.deps.transcript.write({
      stage,
      model: this.deps.model,
      attempt,
      messages: sent,
      answer: null,
      finishReason: null,
      refusal: null,
      usage: NO_USAGE,
      dollars: 0,
      latencyMs,
      responseFormat: mode,
      error: message,
    });
  }

  /** A completion received before, for the same messages (or the very one `seen`): a cache answered, the model did not. */
  servedFromCache(sent: Message[], result: Completed, seen?: Completed): boolean {
    if (!result.id) return false;
    if (seen && seen.id === result.id && seen.answer === result.answer) return true;
    const key = createHash("sha256")
      .update(JSON.stringify([result.id, result.answer, result.refusal, sent]))
      .digest("hex");
    if (this.received.has(key)) return true;
    this.received.add(key);
    return false;
  }

  /** What a transcript entry says of one exchange, whoever answered it. */
  private entryOf(
    stage: Stage,
    attempt: number,
    sent: Message[],
    mode: OutputMode,
    result: Completed,
    latencyMs: number,
  ) {
    return {
      stage,
      model: this.deps.model,
      attempt,
      messages: sent,
      answer: result.answer,
      finishReason: result.finishReason,
      refusal: result.refusal,
      latencyMs,
      responseFormat: mode,
    };
  }
}

/** About four characters a token: what the budget counts when the server reports no usage. */
function estimateUsage(sent: Message[], result: Completed): Usage {
  const promptChars = sent.reduce((n, m) => n + m.content.length, 0);
  const answerChars = (result.answer?.length ?? 0) + (result.refusal?.length ?? 0);
  return {
    promptTokens: Math.ceil(promptChars / 4),
    completionTokens: Math.max(result.chunks, Math.ceil(answerChars / 4)),
    cachedTokens: 0,
  };
}
