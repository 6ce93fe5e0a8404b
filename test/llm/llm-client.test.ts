import nock from "nock";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { Budget, BudgetExceededError } from "../../src/llm/budget.ts";
import { LlmStageError, openAiLlmClient } from "../../src/llm/llm-client.ts";
import { costOf, DEFAULT_PRICES, pricesFromEnv } from "../../src/config/prices.ts";
import { replayFetch } from "../../src/llm/replay-fetch.ts";
import { transcript } from "../../src/llm/transcript.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers, testLlm } from "../support/llm-mock.ts";

/** A client for a test with no secrets to scrub. */
const NO_SECRETS = (text: string) => text;

useHttpMock();

const planSchema = z.object({ steps: z.array(z.string()).min(1) });
const vars = {
  untrusted: {
    problem: "add is wrong",
    tests: "def test_add(): assert add(1, 2) == 3",
    failures: "test_add failed",
    code: "def add(a, b): return a - b",
    findings: "",
  },
  trusted: { memory: "(none)" },
};

describe("openAiLlmClient", () => {
  it("sends the rendered prompt with the stage's schema and temperature, validates and records usage", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["return a + b"] }, usage: { prompt: 120, completion: 30, cached: 20 } },
    ]);
    const llm = testLlm();
    const result = await llm.call("plan", vars, planSchema);
    expect(result).toEqual({ value: { steps: ["return a + b"] }, attempts: 1 });
    expect(requests[0]?.model).toBe("gpt-4o-mini");
    expect(requests[0]?.messages[1]?.content).toContain('<untrusted name="problem">\nadd is wrong\n</untrusted>');
    expect(llm.budget.state).toMatchObject({ llmCalls: 1, promptTokens: 120, completionTokens: 30, cachedTokens: 20 });
    expect(llm.budget.state.dollars).toBeCloseTo(
      costOf("gpt-4o-mini", { promptTokens: 120, cachedTokens: 20, completionTokens: 30 }),
      12,
    );
    expect(llm.sink.entries).toHaveLength(1);
    expect(llm.sink.entries[0]).toMatchObject({
      stage: "plan",
      model: "gpt-4o-mini",
      attempt: 1,
      answer: '{"steps":["return a + b"]}',
      usage: { promptTokens: 120, completionTokens: 30, cachedTokens: 20 },
    });
  });

  it("repairs a malformed answer once, showing the model what was wrong", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", raw: '{"steps": []}' },
      { stage: "plan", content: { steps: ["fix it"] } },
    ]);
    const llm = testLlm();
    expect(await llm.call("plan", vars, planSchema)).toEqual({ value: { steps: ["fix it"] }, attempts: 2 });
    expect(requests[1]?.messages.at(-1)?.content).toMatch(/^That answer is not valid: steps: Too small/);
    expect(requests[1]?.messages.at(-2)).toEqual({ role: "assistant", content: '{"steps": []}' });
    expect(llm.budget.state.llmCalls).toBe(2);
  });

  it("fails the stage cleanly when the answer stays malformed, keeping the raw answer", async () => {
    scriptAnswers([
      { stage: "plan", raw: "I think you should fix add." },
      { stage: "plan", raw: '{"plan": "fix add"}' },
    ]);
    const llm = testLlm();
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStageError);
    expect((error as LlmStageError).message).toMatch(
      /^plan: the answer does not match the schema after one repair: steps: /,
    );
    expect((error as LlmStageError).raw).toBe('{"plan": "fix add"}');
    expect(llm.sink.entries.map((e) => e.answer)).toEqual(["I think you should fix add.", '{"plan": "fix add"}']);
  });

  it("names a refusal and a length cut-off", async () => {
    scriptAnswers([
      { stage: "plan", refusal: "I can't help with that." },
      { stage: "plan", raw: '{"steps": ["a', finishReason: "length" },
    ]);
    const llm = testLlm();
    await expect(llm.call("plan", vars, planSchema)).rejects.toThrow(
      "plan: the model refused: I can't help with that.",
    );
    await expect(llm.call("plan", vars, planSchema)).rejects.toThrow(
      "plan: the answer was cut off at the completion token limit",
    );
  });

  it("checks the budget before calling: no request is sent once a cap is reached", async () => {
    scriptAnswers([{ stage: "plan", content: { steps: ["x"] } }]);
    const llm = testLlm({ llmCalls: 1 });
    await llm.call("plan", vars, planSchema);
    await expect(llm.call("plan", vars, planSchema)).rejects.toThrow(BudgetExceededError);
    expect(llm.budget.state.llmCalls).toBe(1);
  });

  it("caps the completion tokens a call may ask for by what the token budget has left", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["x"] }, usage: { prompt: 900, completion: 50 } },
      { stage: "plan", content: { steps: ["y"] } },
    ]);
    const llm = testLlm({ tokens: 1000 });
    await llm.call("plan", vars, planSchema);
    await llm.call("plan", vars, planSchema);
    expect((requests[1] as unknown as { max_completion_tokens?: number }).max_completion_tokens ?? 50).toBe(50);
  });

  it("refuses any call with a dollar budget of 0, and stops at the wall-clock cap", () => {
    expect(() => new Budget({ llmCalls: 5, tokens: 1000, dollars: 0, minutes: 10 }).ensureRoom()).toThrow(
      "the dollar budget is 0",
    );
    let now = 0;
    const budget = new Budget({ llmCalls: 5, tokens: 1000, dollars: 1, minutes: 10 }, () => now);
    budget.ensureRoom();
    now = 10 * 60_000;
    expect(() => budget.ensureRoom()).toThrow("budget exhausted: 10.0 of 10 minutes used");
  });

  it("prices known models, lets the server add or override prices, and rejects a bad table", () => {
    expect(costOf("gpt-4o", { promptTokens: 1_000_000, cachedTokens: 0, completionTokens: 1_000_000 })).toBe(12.5);
    expect(costOf("llama3:8b", { promptTokens: 1000, cachedTokens: 0, completionTokens: 1000 })).toBe(0);
    const prices = pricesFromEnv({ AUTOGEN_PRICES: '{"llama3:8b":{"input":0.1,"cachedInput":0.1,"output":0.2}}' });
    expect(prices["gpt-4o"]).toEqual(DEFAULT_PRICES["gpt-4o"]);
    expect(
      costOf("llama3:8b", { promptTokens: 1_000_000, cachedTokens: 0, completionTokens: 1_000_000 }, prices),
    ).toBeCloseTo(0.3, 10);
    expect(() => pricesFromEnv({ AUTOGEN_PRICES: "{" })).toThrow("AUTOGEN_PRICES is not JSON");
    expect(() => pricesFromEnv({ AUTOGEN_PRICES: '{"m":{"input":-1}}' })).toThrow(/^AUTOGEN_PRICES is invalid \(m\./);
  });

  it("offers embeddings when an embedding model is configured, scrubbed like every prompt", async () => {
    let sent = "";
    nock("https://llm.example.test")
      .post("/v1/embeddings")
      .reply(200, async (request: Request) => {
        sent = JSON.stringify(await request.json());
        return {
          object: "list",
          data: [{ object: "embedding", index: 0, embedding: [0.1, 0.2, 0.3] }],
          model: "text-embedding-3-small",
          usage: { prompt_tokens: 3, total_tokens: 3 },
        };
      });
    const budget = new Budget({ llmCalls: 5, tokens: 1000, dollars: 1, minutes: 5 });
    const client = openAiLlmClient({
      endpoint: { baseURL: LLM_BASE, apiKey: "k", model: "m" },
      budget,
      transcript: transcript(),
      embeddingModel: "text-embedding-3-small",
      scrub: (t) => t.replace("ghs_secret", "[secret removed]"),
    });
    expect(await client.embed?.("cart total ghs_secret")).toEqual([0.1, 0.2, 0.3]);
    expect(sent).toContain("[secret removed]");
    expect(sent).not.toContain("ghs_secret");
    expect(
      openAiLlmClient({
        endpoint: { baseURL: LLM_BASE, apiKey: "k", model: "m" },
        budget,
        transcript: transcript(),
        scrub: NO_SECRETS,
      }).embed,
    ).toBeUndefined();
  });

  it("replays a recorded run offline through the same SDK and validation", async () => {
    scriptAnswers([
      { stage: "plan", raw: "not json" },
      { stage: "plan", content: { steps: ["recorded"] } },
    ]);
    const recorded = testLlm();
    await recorded.call("plan", vars, planSchema);
    const replayed = openAiLlmClient({
      endpoint: { baseURL: LLM_BASE, apiKey: undefined, model: "gpt-4o-mini" },
      budget: new Budget({ llmCalls: 10, tokens: 100_000, dollars: 5, minutes: 30 }),
      transcript: transcript(),
      scrub: NO_SECRETS,
      fetch: replayFetch(recorded.sink.entries),
    });
    expect(await replayed.call("plan", vars, planSchema)).toEqual({ value: { steps: ["recorded"] }, attempts: 2 });
    expect(replayed.budget.state).toMatchObject({ llmCalls: 2, promptTokens: recorded.budget.state.promptTokens });
    const wrongStage = openAiLlmClient({
      endpoint: { baseURL: LLM_BASE, apiKey: undefined, model: "m" },
      budget: new Budget({ llmCalls: 10, tokens: 1e5, dollars: 5, minutes: 30 }),
      transcript: transcript(),
      scrub: NO_SECRETS,
      fetch: replayFetch(recorded.sink.entries),
      maxRetries: 0,
    });
    await expect(
      wrongStage.call("explain", { untrusted: { code: "x", focus: "" } }, z.object({ explanation: z.string() })),
    ).rejects.toThrow("replay mismatch: call 1: the run asks for stage explain but the transcript recorded plan");
  });

  it("replays a call that failed in the recorded run as the same failure, not as the next answer", async () => {
    const failed = {
      stage: "plan",
      model: "m",
      attempt: 1,
      messages: [],
      answer: null,
      finishReason: null,
      refusal: null,
      usage: { promptTokens: 900, completionTokens: 0, cachedTokens: 0 },
      dollars: 0,
      latencyMs: 120_000,
      usageEstimated: true,
      error:
        "the model server at http://localhost:11434/v1 went silent for 120 s before any of the answer (AUTOGEN_LLM_TIMEOUT)",
    };
    const replayed = openAiLlmClient({
      endpoint: { baseURL: LLM_BASE, apiKey: undefined, model: "m" },
      budget: new Budget({ llmCalls: 10, tokens: 1e5, dollars: 5, minutes: 30 }),
      transcript: transcript(),
      scrub: NO_SECRETS,
      fetch: replayFetch([failed]),
      maxRetries: 0,
    });
    const error = await replayed.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStageError);
    expect((error as Error).message).toContain(
      "replayed failure: the model server at http://localhost:11434/v1 went silent for 120 s",
    );
  });
});
