// The one way every door (CLI fix, eval, the App's jobs, the Action) builds its model
// client: the scrubber is not optional (nothing reaches the model or a transcript with a
// secret of this process in it), the repository's budgets meet the operator's caps (the
// lower wins), and prices and the transcript file come along. A door chooses only the
// endpoint, the caps and where the transcript goes.
import type { LlmEndpoint } from "../config/llm-env.ts";
import { droppedSecrets } from "../secrets/drop-secrets.ts";
import { processSecrets, secretScrubber, type Scrubber } from "../secrets/scrub-secrets.ts";
import { Budget, type BudgetCaps } from "./budget.ts";
// eslint-disable-next-line no-restricted-imports -- this is the one factory the rule points to
import { openAiLlmClient, type LlmClient } from "./llm-client.ts";
import type { Price } from "../config/prices.ts";
import { transcript } from "./transcript.ts";

export type JobLlmSettings = {
  endpoint: LlmEndpoint;
  /** The repository's budgets (its config). */
  budgets: BudgetCaps;
  /** The operator's caps, when there are any (the App's AUTOGEN_MAX_*): each cap is the lower of the two. */
  serverCaps?: BudgetCaps | undefined;
  prices?: Record<string, Price> | undefined;
  /** Everything sent to the model and written to the transcript passes through this. */
  scrub: Scrubber;
  /** The JSON-lines transcript; none: kept in memory only. */
  transcriptPath?: string | undefined;
  embeddingModel?: string | undefined;
  signal?: AbortSignal | undefined;
  /** Replay (`--replay`) and tests: the fetch the SDK uses, with no resends. */
  fetch?: typeof fetch | undefined;
};

export function jobLlmClient(settings: JobLlmSettings): LlmClient {
  const { budgets, serverCaps } = settings;
  const caps: BudgetCaps = serverCaps
    ? {
        llmCalls: Math.min(serverCaps.llmCalls, budgets.llmCalls),
        tokens: Math.min(serverCaps.tokens, budgets.tokens),
        dollars: Math.min(serverCaps.dollars, budgets.dollars),
        minutes: Math.min(serverCaps.minutes, budgets.minutes),
      }
    : { llmCalls: budgets.llmCalls, tokens: budgets.tokens, dollars: budgets.dollars, minutes: budgets.minutes };
  return openAiLlmClient({
    endpoint: settings.endpoint,
    budget: new Budget(caps),
    transcript: transcript(settings.transcriptPath, settings.scrub),
    scrub: settings.scrub,
    ...(settings.prices ? { prices: settings.prices } : {}),
    ...(settings.embeddingModel ? { embeddingModel: settings.embeddingModel } : {}),
    ...(settings.signal ? { signal: settings.signal } : {}),
    ...(settings.fetch ? { fetch: settings.fetch, maxRetries: 0 } : {}),
  });
}

/**
 * The scrubber of a process: the secrets in its environment (as given to the door, before
 * they were dropped), those already dropped from process.env, and any the door adds (a key
 * read from a file, an input). What every door passes to jobLlmClient.
 */
export function processScrubber(env: NodeJS.ProcessEnv, extra: ReadonlyArray<string | undefined> = []): Scrubber {
  return secretScrubber([...processSecrets(env), ...droppedSecrets(), ...extra]);
}
