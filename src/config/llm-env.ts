// The LLM endpoint from the environment: one rule for the server and for the commands
// that run without the App's credentials (`autogen fix`, `autogen eval`).
export type LlmEndpoint = { baseURL: string; apiKey: string | undefined; model: string };

export const DEFAULT_MODEL = "gpt-4o-mini";

export function llmEndpoint(baseURL: string | undefined, apiKey: string | undefined, model: string): LlmEndpoint | undefined {
  if (baseURL) return { baseURL, apiKey, model };
  if (apiKey) return { baseURL: "https://api.openai.com/v1", apiKey, model };
  return undefined;
}

export function llmEndpointFromEnv(env: NodeJS.ProcessEnv): LlmEndpoint | undefined {
  return llmEndpoint(env.AUTOGEN_LLM_BASE_URL?.trim() || undefined, env.OPENAI_API_KEY?.trim() || undefined, env.AUTOGEN_LLM_MODEL?.trim() || DEFAULT_MODEL);
}
