// Samples are samples: a model server with a response cache keyed by the request body (as
// the live-llm bridge and caching proxies keep one) must never answer a sampled request
// from that cache, and an answer it does serve from the cache is not billed. Real HTTP on
// 127.0.0.1 and the real openai SDK; the "model" is a scripted handler behind the cache.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Budget } from "../../src/llm/budget.ts";
import { openAiLlmClient } from "../../src/llm/llm-client.ts";
import { ResponseFormatMemory } from "../../src/llm/response-format.ts";
import { transcript } from "../../src/llm/transcript.ts";
import { fakeModelServer, sendJson, type FakeModelServer, type ReceivedRequest } from "./fake-model-server.ts";

const planSchema = z.object({ steps: z.array(z.string().min(1)).min(1) });
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

type CachingServer = FakeModelServer & {
  reachedModel: ReceivedRequest[];
  usage: { prompt: number; completion: number };
};
const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

/** A server whose cache answers a byte-identical body with the stored completion (same id, same usage). */
async function cachingServer(answer: (request: ReceivedRequest, n: number) => string): Promise<CachingServer> {
  const cache = new Map<string, unknown>();
  const reachedModel: ReceivedRequest[] = [];
  const usage = { prompt: 0, completion: 0 };
  const server = await fakeModelServer((request, res) => {
    const key = JSON.stringify(request);
    const hit = cache.get(key);
    if (hit) return sendJson(res, 200, hit);
    reachedModel.push(request);
    const n = reachedModel.length;
    const reported = { prompt_tokens: 1000 + n, completion_tokens: 50 + n };
    usage.prompt += reported.prompt_tokens;
    usage.completion += reported.completion_tokens;
    const completion = {
      id: `chatcmpl-cache-${n}`,
      object: "chat.completion",
      created: 0,
      model: "gpt-4o",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: answer(request, n) } }],
      usage: { ...reported, total_tokens: reported.prompt_tokens + reported.completion_tokens },
    };
    cache.set(key, completion);
    sendJson(res, 200, completion);
  });
  servers.push(server);
  return Object.assign(server, { reachedModel, usage });
}

function client(baseURL: string) {
  const budget = new Budget({ llmCalls: 20, tokens: 1_000_000, dollars: 100, minutes: 10 });
  const sink = transcript();
  const llm = openAiLlmClient({
    endpoint: { baseURL, apiKey: "sk-x", model: "gpt-4o" },
    budget,
    transcript: sink,
    responseFormats: new ResponseFormatMemory(),
    maxRetries: 0,
    scrub: (t) => t,
  });
  return { llm, budget, sink };
}

describe("sampled requests and a response cache in front of the model", () => {
  it("6 plan samples at temperature 0.4: 6 requests reach the model, 6 different plans come back, cost is what the server reported", async () => {
    const server = await cachingServer((_request, n) => JSON.stringify({ steps: [`plan number ${n}`] }));
    const { llm, budget } = client(server.baseURL);
    const plans: string[] = [];
    for (let index = 1; index <= 6; index++)
      plans.push((await llm.call("plan", vars, planSchema, { sample: { index, of: 6 } })).value.steps[0] ?? "");

    expect(server.reachedModel).toHaveLength(6);
    expect(new Set(plans).size).toBe(6);
    expect(
      server.reachedModel.every((r) => (r as ReceivedRequest & { temperature?: number }).temperature === 0.4),
    ).toBe(true);
    // The model is told which sample it writes (at the end of the prompt, after the stable part).
    expect(server.reachedModel[2]?.messages.at(-1)?.content).toMatch(/sample 3 of 6/);
    expect(budget.state).toMatchObject({
      llmCalls: 6,
      cachedCalls: 0,
      promptTokens: server.usage.prompt,
      completionTokens: server.usage.completion,
    });
    expect(budget.state.callsByStage).toEqual({ plan: 6 });
  });

  it("a repeated temperature-0 request the cache answers is counted as a cached call, not billed", async () => {
    const server = await cachingServer(() => JSON.stringify({ ok: true, problems: [] }));
    const { llm, budget, sink } = client(server.baseURL);
    const check = z.object({ ok: z.boolean(), problems: z.array(z.string()) });
    const same = { trusted: { plan: "1. add", verification: "Test t: derived 5, expected 5" } };
    await llm.call("check-verification", same, check);
    const billed = { ...budget.state };
    await llm.call("check-verification", same, check);

    expect(server.requests).toHaveLength(2);
    expect(server.reachedModel).toHaveLength(1);
    expect(budget.state).toMatchObject({
      llmCalls: 1,
      cachedCalls: 1,
      promptTokens: server.usage.prompt,
      completionTokens: server.usage.completion,
      dollars: billed.dollars,
    });
    expect(budget.state.dollars).toBeGreaterThan(0);
    expect(sink.entries.map((e) => [e.cached ?? false, e.dollars > 0])).toEqual([
      [false, true],
      [true, false],
    ]);
  });

  it("a separate run's identical request is not answered from the cache of the first (each job sends its own seed)", async () => {
    const server = await cachingServer((_request, n) => JSON.stringify({ ok: n === 1, problems: [] }));
    const check = z.object({ ok: z.boolean(), problems: z.array(z.string()) });
    const same = { trusted: { plan: "1. add", verification: "Test t: derived 5, expected 5" } };
    const first = await client(server.baseURL).llm.call("check-verification", same, check);
    const second = client(server.baseURL);
    const again = await second.llm.call("check-verification", same, check);

    expect(server.reachedModel).toHaveLength(2);
    expect([first.value.ok, again.value.ok]).toEqual([true, false]);
    expect(second.budget.state).toMatchObject({ llmCalls: 1, cachedCalls: 0 });
  });
});

describe("a cache that ignores the seed", () => {
  /** Keyed by the messages alone, as some caching proxies key. */
  async function messagesCache(): Promise<CachingServer> {
    const cache = new Map<string, unknown>();
    const reachedModel: ReceivedRequest[] = [];
    const server = await fakeModelServer((request, res) => {
      const key = JSON.stringify(request.messages);
      const hit = cache.get(key);
      if (hit) return sendJson(res, 200, hit);
      reachedModel.push(request);
      const n = reachedModel.length;
      const completion = {
        id: `chatcmpl-m-${n}`,
        object: "chat.completion",
        created: 0,
        model: "gpt-4o",
        choices: [
          {
            index: 0,
            finish_reason: "stop",
            message: {
              role: "assistant",
              content: JSON.stringify({ edits: [{ kind: "replace", path: "a.py", search: "x", replace: `y${n}` }] }),
            },
          },
        ],
        usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
      };
      cache.set(key, completion);
      sendJson(res, 200, completion);
    });
    servers.push(server);
    return Object.assign(server, { reachedModel, usage: { prompt: 0, completion: 0 } });
  }
  const edits = z.object({
    edits: z.array(z.object({ kind: z.literal("replace"), path: z.string(), search: z.string(), replace: z.string() })),
  });
  const generateVars = { untrusted: { problem: "p", failures: "f", code: "c" } };

  it("a repeated request at temperature 0.5 answered from the cache is asked again in words the cache has not seen", async () => {
    const server = await messagesCache();
    const { llm, budget } = client(server.baseURL);
    const first = await llm.call("generate", generateVars, edits, { temperature: 0.5 });
    const second = await llm.call("generate", generateVars, edits, { temperature: 0.5 });

    expect(server.requests).toHaveLength(3);
    expect(server.reachedModel).toHaveLength(2);
    expect(server.reachedModel[1]?.messages.at(-1)?.content).toMatch(/\(Fresh answer \d+\.\)$/);
    expect([first.value.edits[0]?.replace, second.value.edits[0]?.replace]).toEqual(["y1", "y2"]);
    expect(budget.state).toMatchObject({ llmCalls: 2, cachedCalls: 1, callsByStage: { generate: 2 } });
  });

  it("a cache that answers every request with the same completion ends the stage with an error that says what to turn off", async () => {
    const only = {
      id: "chatcmpl-stuck",
      object: "chat.completion",
      created: 0,
      model: "gpt-4o",
      choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content: '{"steps":["same"]}' } }],
      usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 },
    };
    const server = await fakeModelServer((_request, res) => sendJson(res, 200, only));
    servers.push(server);
    const { llm, budget } = client(server.baseURL);
    await llm.call("plan", vars, planSchema, { sample: { index: 1, of: 2 } });
    await expect(llm.call("plan", vars, planSchema, { sample: { index: 1, of: 2 } })).rejects.toThrow(
      /response cache in front of the model .* turn that cache off/,
    );
    expect(budget.state).toMatchObject({ llmCalls: 1, cachedCalls: 2 });
  });
});
