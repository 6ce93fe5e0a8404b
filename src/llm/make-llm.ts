// The one place a model client is built, for every door: `autogen fix`, `autogen eval`, the
// App's jobs (issue and red build) and the Action. Every client gets the secret scrubber on
// each message it sends and on each transcript line it writes, the job's budget (the lower of
// the repository's caps and the operator's), the price table, and its transcript.
import { droppedSecrets } from "../config/drop-secrets.ts";
import type { LlmEndpoint } from "../config/llm-env.ts";
import { processSecrets, secretScrubber, type Scrubber } from "../report/scrub-secrets.ts";
import { Budget, type BudgetCaps } from "./budget.ts";
import { openAiLlmClient, type LlmClient } from "./llm-client.ts";
import type { Price } from "./prices.ts";
import { replayFetch } from "./replay-fetch.ts";
import { transcript, type TranscriptEntry, type TranscriptSink } from "./transcript.ts";

export type LlmSettings = {
  endpoint: LlmEndpoint;
  /** Required: no door builds a client that could send a secret. */
  scrub: Scrubber;
  prices: Record<string, Price>;
  /** The operator's caps (the server's); a job gets the lower of these and its repository's. */
  caps?: BudgetCaps | undefined;
  /** An embedding model on the same endpoint, for hybrid memory retrieval. */
  embeddingModel?: string | undefined;
  /** For tests: the fetch the SDK uses. */
  fetch?: typeof fetch;
};

export type LlmRequest = {
  /** The repository's caps (`budgets` in its config). */
  budgets: BudgetCaps;
  /** Where the transcript is appended as JSON lines; without one it is kept in memory only. */
  transcriptPath?: string | undefined;
  /** Aborts a call in flight (`/autogen stop`). */
  signal?: AbortSignal | undefined;
  /** Answers from a recorded transcript instead of the endpoint (offline replay); its model is used. */
  replay?: readonly TranscriptEntry[] | undefined;
};

export type LlmFactory = (request: LlmRequest) => LlmClient;

/** The factory a door hands to its jobs. */
export function llmFactory(settings: LlmSettings): LlmFactory {
  return (request) => {
    const replayed = request.replay?.[0]?.model;
    return openAiLlmClient({
      endpoint: replayed ? { ...settings.endpoint, model: replayed } : settings.endpoint,
      prices: settings.prices,
      budget: new Budget(lowerCaps(request.budgets, settings.caps)),
      transcript: scrubbedTranscript(transcript(request.transcriptPath), settings.scrub),
      scrub: settings.scrub,
      embeddingModel: settings.embeddingModel,
      ...(request.signal ? { signal: request.signal } : {}),
      ...(request.replay ? { fetch: replayFetch(request.replay), maxRetries: 0 } : settings.fetch ? { fetch: settings.fetch } : {}),
    });
  };
}

/** The scrubber every door starts from: this process's secrets (also those already dropped from its environment) and the door's own. */
export function doorScrubber(env: NodeJS.ProcessEnv, own: ReadonlyArray<string | undefined>): Scrubber {
  return secretScrubber([...processSecrets(env), ...droppedSecrets(), ...own]);
}

function lowerCaps(repository: BudgetCaps, operator: BudgetCaps | undefined): BudgetCaps {
  const caps = { llmCalls: repository.llmCalls, tokens: repository.tokens, dollars: repository.dollars, minutes: repository.minutes };
  if (!operator) return caps;
  return {
    llmCalls: Math.min(operator.llmCalls, caps.llmCalls),
    tokens: Math.min(operator.tokens, caps.tokens),
    dollars: Math.min(operator.dollars, caps.dollars),
    minutes: Math.min(operator.minutes, caps.minutes),
  };
}

/** What is recorded passes the scrubber too: the answer, a refusal and an error message, not only the messages sent. */
function scrubbedTranscript(sink: TranscriptSink, scrub: Scrubber): TranscriptSink {
  const text = (value: string | null) => (value === null ? null : scrub(value));
  return {
    entries: sink.entries,
    write(entry) {
      sink.write({
        ...entry,
        messages: entry.messages.map((m) => ({ ...m, content: scrub(m.content) })),
        answer: text(entry.answer),
        refusal: text(entry.refusal),
        ...(entry.error === undefined ? {} : { error: scrub(entry.error) }),
      });
    },
  };
}
