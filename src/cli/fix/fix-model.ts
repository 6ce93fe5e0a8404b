// The model behind `fix`: the endpoint from the environment (or a recorded transcript with
// --replay), the one job LLM client with the config's budgets and the secret scrubber, and
// the strategy's name (model-free "template" without an endpoint).
import { join, resolve } from "node:path";
import { LlmEnvError, llmEndpointFromEnv, type LlmEndpoint } from "../../config/llm-env.ts";
import { pricesFromEnv } from "../../config/prices.ts";
import type { RepoConfig } from "../../config/repo-config-schema.ts";
import { jobLlmClient, processScrubber } from "../../llm/job-llm-client.ts";
import type { LlmClient } from "../../llm/llm-client.ts";
import { replayFetch } from "../../llm/replay-fetch.ts";
import { readTranscript } from "../../llm/transcript.ts";
import { gitDir } from "../../workspace/git.ts";
import { UsageError, type CliIo } from "../command.ts";

export type FixModel = { strategyName: string; llm: LlmClient | undefined; notes: string[] };

/** The model for a fix, or the reason the environment or flags do not allow one (a message for the user). */
export async function fixModel(
  io: CliIo,
  repo: string,
  config: RepoConfig,
  flags: { strategy?: string | undefined; replay?: string | undefined },
): Promise<FixModel | { error: string }> {
  let prices;
  try {
    prices = pricesFromEnv(io.env);
  } catch (error) {
    return { error: (error as Error).message };
  }
  let endpoint: LlmEndpoint | undefined;
  try {
    endpoint = flags.replay
      ? {
          baseURL: "http://replay.invalid/v1",
          apiKey: undefined,
          model: transcriptModel(resolve(io.cwd, flags.replay)),
        }
      : llmEndpointFromEnv(io.env);
  } catch (error) {
    if (error instanceof LlmEnvError) return { error: error.message };
    throw error;
  }
  const strategyName = flags.strategy ?? (endpoint ? config.strategy.name : "template");
  const notes: string[] = [];
  if (!flags.strategy && !endpoint) {
    notes.push(
      "no LLM endpoint configured (AUTOGEN_LLM_BASE_URL / OPENAI_API_KEY): using the model-free template strategy",
    );
  }
  if (!endpoint || strategyName === "template") return { strategyName, llm: undefined, notes };
  const stamp = new Date().toISOString().replace(/[:.]/g, "-");
  const llm = jobLlmClient({
    endpoint,
    budgets: config.budgets,
    prices,
    scrub: processScrubber(io.env, [endpoint.apiKey]),
    transcriptPath: join(await gitDir(repo), "autogen", "transcripts", `${stamp}.jsonl`),
    embeddingModel: io.env.AUTOGEN_EMBEDDING_MODEL?.trim() || undefined,
    fetch: flags.replay ? replayFetch(readTranscript(resolve(io.cwd, flags.replay))) : undefined,
  });
  notes.push(
    flags.replay
      ? `replaying model answers from ${flags.replay}`
      : `model ${endpoint.model} at ${endpoint.baseURL}; transcript in .git/autogen/transcripts/`,
  );
  return { strategyName, llm, notes };
}

function transcriptModel(path: string): string {
  const [first] = readTranscript(path);
  if (!first) throw new UsageError(`${path} holds no model calls to replay`);
  return first.model;
}
