// Scripted model answers served over HTTP with nock, so the real openai SDK runs.
import { nockOn } from "./nock-on.ts";
import { z } from "zod";
import { Budget, type BudgetCaps } from "../../src/llm/budget.ts";
import { openAiLlmClient, type LlmClient } from "../../src/llm/llm-client.ts";
import { transcript, type TranscriptSink } from "../../src/llm/transcript.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";

export const LLM_BASE = "https://llm.example.test/v1";
let completions = 0;

export type ScriptedAnswer = {
  /** The stage the request must be for (checked against the response format's name). */
  stage: string;
  content?: unknown;
  raw?: string;
  refusal?: string;
  finishReason?: "stop" | "length";
  usage?: { prompt: number; completion: number; cached?: number };
};

const requestSchema = z.looseObject({
  model: z.string(),
  messages: z.array(z.object({ role: z.string(), content: z.string() })),
  response_format: z.object({ json_schema: z.object({ name: z.string() }) }),
});

/** Registers one HTTP reply per answer, in order; each checks the stage it answers. */
export function scriptAnswers(answers: ScriptedAnswer[]): { requests: Array<z.infer<typeof requestSchema>> } {
  const requests: Array<z.infer<typeof requestSchema>> = [];
  const scope = nockOn()("https://llm.example.test");
  for (const answer of answers) {
    scope
      .post("/v1/chat/completions", (body: unknown) => {
        const parsed = requestSchema.safeParse(body);
        return parsed.success && parsed.data.response_format.json_schema.name === answer.stage.replaceAll("-", "_");
      })
      .reply(200, async (request: Request) => {
        // nock 15 hands the reply function the fetch Request.
        requests.push(requestSchema.parse(await request.json()));
        const content = answer.raw ?? (answer.content === undefined ? null : JSON.stringify(answer.content));
        const usage = answer.usage ?? { prompt: 100, completion: 20 };
        return {
          // Its own id, as a real server gives: a repeated id and answer is a cache's answer.
          id: `chatcmpl-test-${++completions}`,
          object: "chat.completion",
          created: 0,
          model: "gpt-4o-mini",
          choices: [
            {
              index: 0,
              finish_reason: answer.finishReason ?? "stop",
              message: { role: "assistant", content, refusal: answer.refusal ?? null },
            },
          ],
          usage: {
            prompt_tokens: usage.prompt,
            completion_tokens: usage.completion,
            total_tokens: usage.prompt + usage.completion,
            prompt_tokens_details: { cached_tokens: usage.cached ?? 0 },
          },
        };
      });
  }
  return { requests };
}

export function testLlm(
  caps: Partial<BudgetCaps> = {},
  sink: TranscriptSink = transcript(),
): LlmClient & { sink: TranscriptSink } {
  const budget = new Budget({ llmCalls: 50, tokens: 100_000, dollars: 5, minutes: 30, ...caps });
  const client = openAiLlmClient({
    endpoint: { baseURL: LLM_BASE, apiKey: "sk-test-key", model: "gpt-4o-mini" },
    budget,
    transcript: sink,
    scrub: secretScrubber(["sk-test-key"]),
    maxRetries: 0,
    timeoutMs: 10_000,
  });
  return Object.assign(client, { sink });
}
