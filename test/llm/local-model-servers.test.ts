// The client against real HTTP servers on 127.0.0.1 that behave like vLLM, llama.cpp,
// Ollama and slow or stuck local models; the real openai SDK runs, nothing is mocked.
// No nock here: these requests must reach the sockets.
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { llmEndpointFromEnv, type LlmEndpoint } from "../../src/config/llm-env.ts";
import { Budget, BudgetExceededError } from "../../src/llm/budget.ts";
import { LlmStageError, LlmTimeoutError, openAiLlmClient, type OpenAiClientOptions } from "../../src/llm/llm-client.ts";
import { ResponseFormatMemory } from "../../src/llm/response-format.ts";
import { transcript, type TranscriptSink } from "../../src/llm/transcript.ts";
import {
  fakeModelServer,
  sendCompletion,
  sendJson,
  sendStream,
  tokens,
  type FakeModelServer,
  type Handler,
} from "./fake-model-server.ts";

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
const PLAN = '{"steps":["return a + b instead of a - b"]}';

const servers: FakeModelServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function serve(handler: Handler): Promise<FakeModelServer> {
  const server = await fakeModelServer(handler);
  servers.push(server);
  return server;
}

function client(endpoint: LlmEndpoint, extra: Partial<OpenAiClientOptions> = {}, sink: TranscriptSink = transcript()) {
  const budget = extra.budget ?? new Budget({ llmCalls: 20, tokens: 100_000, dollars: 1, minutes: 10 });
  return {
    llm: openAiLlmClient({
      endpoint,
      budget,
      transcript: sink,
      responseFormats: new ResponseFormatMemory(),
      retryBaseMs: 20,
      scrub: (text) => text,
      ...extra,
    }),
    sink,
    budget,
  };
}

const local = (baseURL: string, tuning: Partial<LlmEndpoint> = {}): LlmEndpoint => ({
  baseURL,
  apiKey: undefined,
  model: "qwen2.5-coder:7b",
  ...tuning,
});

const llamaCppRejection = {
  error: {
    code: 400,
    message: 'response_format type must be one of "text" or "json_object", but got: json_schema',
    type: "invalid_request_error",
  },
};

describe("structured output that degrades with the server", () => {
  it("falls back to json_object when json_schema is rejected with 400 (llama.cpp, vLLM), and remembers it for the endpoint", async () => {
    const server = await serve((request, res) => {
      if (request.response_format?.type === "json_schema") return sendJson(res, 400, llamaCppRejection);
      return sendStream(request, res, tokens(PLAN), { usage: { prompt: 80, completion: 12 } });
    });
    const formats = new ResponseFormatMemory();
    const { llm, sink } = client(local(server.baseURL), { responseFormats: formats });
    expect(await llm.call("plan", vars, planSchema)).toEqual({
      value: { steps: ["return a + b instead of a - b"] },
      attempts: 1,
    });
    expect(server.requests.map((r) => r.response_format?.type)).toEqual(["json_schema", "json_object"]);
    expect(server.requests[0]?.response_format?.json_schema).toMatchObject({ name: "plan", strict: true });
    // json_object carries no schema: the prompt does.
    expect(server.requests[1]?.messages[0]?.content).toContain(
      'It must match this JSON Schema:\n{"type":"object","properties":{"steps"',
    );
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      responseFormat: "json_object",
      usage: { promptTokens: 80, completionTokens: 12 },
    });

    // A later job's client on the same endpoint starts where this one ended.
    const later = client(local(server.baseURL), { responseFormats: formats });
    await later.llm.call("plan", vars, planSchema);
    expect(server.requests.map((r) => r.response_format?.type)).toEqual(["json_schema", "json_object", "json_object"]);
  });

  it("falls back to the schema in the prompt when every response_format is rejected (vLLM's error body)", async () => {
    const server = await serve((request, res) => {
      if (request.response_format)
        return sendJson(res, 400, {
          object: "error",
          message: `[{'type': 'literal_error', 'loc': ('body', 'response_format', 'type'), 'msg': "Input should be 'text'", 'input': '${request.response_format.type}'}]`,
          type: "BadRequestError",
          param: null,
          code: 400,
        });
      return sendStream(request, res, tokens(PLAN));
    });
    const { llm, sink } = client(local(server.baseURL));
    expect((await llm.call("plan", vars, planSchema)).value.steps).toHaveLength(1);
    expect(server.requests.map((r) => r.response_format?.type ?? "none")).toEqual([
      "json_schema",
      "json_object",
      "none",
    ]);
    expect(server.requests[2]?.messages[0]?.content).toMatch(
      /Answer with one JSON object and nothing else[\s\S]*"required":\["steps"\]/,
    );
    expect(sink.entries[0]?.responseFormat).toBe("prompt");
  });

  it("drops strict when the server refuses the schema for strict mode, keeping json_schema", async () => {
    const server = await serve((request, res) => {
      if (request.response_format?.json_schema?.strict)
        return sendJson(res, 400, {
          error: {
            message:
              "Invalid schema for response_format 'plan': In context=(), 'additionalProperties' is required to be supplied and to be false.",
            type: "invalid_request_error",
            param: "response_format",
            code: null,
          },
        });
      return sendStream(request, res, tokens(PLAN));
    });
    const formats = new ResponseFormatMemory();
    const { llm } = client(local(server.baseURL), { responseFormats: formats });
    await llm.call("plan", vars, planSchema);
    await llm.call("plan", vars, planSchema);
    expect(server.requests.map((r) => [r.response_format?.type, r.response_format?.json_schema?.strict])).toEqual([
      ["json_schema", true],
      ["json_schema", false],
      ["json_schema", false],
    ]);
  });

  it("does not mistake another 400 for a format rejection", async () => {
    const server = await serve((_request, res) =>
      sendJson(res, 400, {
        error: { message: "model 'qwen2.5-coder:7b' not found, try pulling it first", type: "api_error" },
      }),
    );
    const { llm, sink, budget } = client(local(server.baseURL));
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStageError);
    expect(budget.state).toMatchObject({ llmCalls: 1, promptTokens: 0, completionTokens: 0 });
    expect((error as Error).message).toBe(
      `plan: the model server at ${server.baseURL} answered 400 model 'qwen2.5-coder:7b' not found, try pulling it first`,
    );
    expect(server.requests).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({ error: expect.stringContaining("not found"), usage: { promptTokens: 0 } });
  });

  it("validates JSON from a server that ignores strict, repairs once with the error, then fails the step keeping the raw answers", async () => {
    const server = await serve((request, res) => sendStream(request, res, tokens('{"plan": "fix add"}')));
    const { llm, sink, budget } = client(local(server.baseURL));
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStageError);
    expect((error as LlmStageError).message).toMatch(
      /^plan: the answer does not match the schema after one repair: steps: /,
    );
    expect((error as LlmStageError).raw).toBe('{"plan": "fix add"}');
    expect(server.requests).toHaveLength(2);
    expect(server.requests[0]?.response_format?.json_schema?.strict).toBe(true);
    expect(server.requests[1]?.messages.at(-2)).toEqual({ role: "assistant", content: '{"plan": "fix add"}' });
    expect(server.requests[1]?.messages.at(-1)?.content).toMatch(
      /^That answer is not valid: steps: .*Reply again with one JSON object/,
    );
    expect(sink.entries.map((e) => e.answer)).toEqual(['{"plan": "fix add"}', '{"plan": "fix add"}']);
    expect(budget.state.llmCalls).toBe(2);
  });

  it("extracts the JSON from markdown fences and prose, and labels usage it had to estimate", async () => {
    const answer = `Sure! Here is the plan:\n\n\`\`\`json\n${PLAN}\n\`\`\`\n\nLet me know if you need more.`;
    // No usage chunk: like llama.cpp builds that ignore stream_options.
    const server = await serve((request, res) => sendStream(request, res, tokens(answer)));
    const { llm, sink, budget } = client(local(server.baseURL));
    expect(await llm.call("plan", vars, planSchema)).toEqual({
      value: { steps: ["return a + b instead of a - b"] },
      attempts: 1,
    });
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]).toMatchObject({ stream: true, stream_options: { include_usage: true } });
    const entry = sink.entries[0];
    expect(entry).toMatchObject({ answer, usageEstimated: true });
    const sentChars = entry?.messages.reduce((n, m) => n + m.content.length, 0) ?? 0;
    expect(entry?.usage).toEqual({
      promptTokens: Math.ceil(sentChars / 4),
      completionTokens: Math.ceil(answer.length / 4),
      cachedTokens: 0,
    });
    expect(budget.state).toMatchObject({
      llmCalls: 1,
      promptTokens: entry?.usage.promptTokens,
      completionTokens: entry?.usage.completionTokens,
    });
  });

  it("accepts a whole JSON completion from a server that ignores stream", async () => {
    const server = await serve((_request, res) => sendCompletion(res, PLAN));
    const { llm, sink } = client(local(server.baseURL));
    expect((await llm.call("plan", vars, planSchema)).attempts).toBe(1);
    expect(sink.entries[0]).toMatchObject({ usage: { promptTokens: 50, completionTokens: 10 } });
    expect(sink.entries[0]?.usageEstimated).toBeUndefined();
  });
});

describe("slow and stuck servers", () => {
  it("waits for a model that streams for longer than the timeout, as long as it keeps sending, with one request", async () => {
    // 8 pieces 500 ms apart: 4 s in all against AUTOGEN_LLM_TIMEOUT=1.
    const server = await serve((request, res) =>
      sendStream(request, res, tokens(PLAN, Math.ceil(PLAN.length / 8)), {
        gapMs: 500,
        usage: { prompt: 300, completion: 14 },
      }),
    );
    const endpoint = llmEndpointFromEnv({
      AUTOGEN_LLM_BASE_URL: server.baseURL,
      AUTOGEN_LLM_MODEL: "llama3.1:8b",
      AUTOGEN_LLM_TIMEOUT: "1",
    });
    expect(endpoint?.idleTimeoutMs).toBe(1000);
    const { llm, sink, budget } = client(endpoint as LlmEndpoint, { maxRetries: 2 });
    const started = Date.now();
    expect(await llm.call("plan", vars, planSchema)).toEqual({
      value: { steps: ["return a + b instead of a - b"] },
      attempts: 1,
    });
    expect(Date.now() - started).toBeGreaterThan(3500);
    expect(server.requests).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      usage: { promptTokens: 300, completionTokens: 14, cachedTokens: 0 },
      finishReason: "stop",
    });
    expect(sink.entries[0]?.usageEstimated).toBeUndefined();
    expect(budget.state).toMatchObject({ llmCalls: 1, promptTokens: 300, completionTokens: 14 });
  });

  it("gives up on a server that never answers after the idle timeout, naming AUTOGEN_LLM_TIMEOUT, without sending the request again", async () => {
    const server = await serve(() => undefined); // takes the request, says nothing
    const endpoint = llmEndpointFromEnv({
      AUTOGEN_LLM_BASE_URL: server.baseURL,
      AUTOGEN_LLM_TIMEOUT: "1",
    }) as LlmEndpoint;
    const { llm, sink, budget } = client(endpoint, { maxRetries: 3 });
    const started = Date.now();
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    const waited = Date.now() - started;
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect(error).toBeInstanceOf(LlmStageError);
    expect((error as Error).message).toBe(
      `plan: the model server at ${server.baseURL} went silent for 1 s before any of the answer (AUTOGEN_LLM_TIMEOUT); the request was not sent again, since the server may still be working on it. Raise AUTOGEN_LLM_TIMEOUT (at most 300 seconds) for a slow model, or check the server`,
    );
    expect(waited).toBeGreaterThanOrEqual(950);
    // A hang guard (a busy machine is slow, never fast): without the idle timeout the call waits for the SDK's own.
    expect(waited).toBeLessThan(60_000);
    // Longer than any backoff: still the one request.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    expect(server.requests).toHaveLength(1);
    // The server took the request and worked on it: counted, with an estimate, and the failure kept.
    expect(budget.state.llmCalls).toBe(1);
    expect(sink.entries).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({
      answer: null,
      usageEstimated: true,
      error: expect.stringContaining("AUTOGEN_LLM_TIMEOUT"),
    });
  });

  it("gives up on a stream that stalls half-way, keeping the partial answer, with one request", async () => {
    const server = await serve((request, res) =>
      sendStream(request, res, ['{"steps":', '["return'], { hangAfter: true }),
    );
    const { llm, sink } = client(local(server.baseURL), { timeoutMs: 400, maxRetries: 3 });
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmTimeoutError);
    expect((error as Error).message).toContain(
      "went silent for 0.4 s after 2 chunks of the answer (AUTOGEN_LLM_TIMEOUT)",
    );
    expect((error as LlmTimeoutError).raw).toBe('{"steps":["return');
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect(server.requests).toHaveLength(1);
    expect(sink.entries[0]).toMatchObject({ answer: '{"steps":["return', usage: { completionTokens: 5 } });
  });

  it("stops a model that streams past the job's time budget", async () => {
    const server = await serve((request, res) => sendStream(request, res, tokens(PLAN), { gapMs: 300 }));
    let now = 0;
    // 59.5 of 60 seconds used: half a second left for this call.
    const budget = new Budget({ llmCalls: 5, tokens: 10_000, dollars: 1, minutes: 1 }, () => now);
    now = 59_500;
    const { llm } = client(local(server.baseURL), { budget, timeoutMs: 5000 });
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect((error as BudgetExceededError).cap).toBe("minutes");
    expect((error as Error).message).toMatch(
      /^budget exhausted: the job's 1 minutes ran out while the model was answering \(after \d chunks of the answer\)$/,
    );
    expect(server.requests).toHaveLength(1);
  });

  it("stops reading at the token cap when the server ignores max_completion_tokens", async () => {
    const server = await serve((request, res) =>
      sendStream(
        request,
        res,
        Array.from({ length: 400 }, () => "word "),
        { gapMs: 2 },
      ),
    );
    const endpoint = llmEndpointFromEnv({
      AUTOGEN_LLM_BASE_URL: server.baseURL,
      AUTOGEN_LLM_MAX_TOKENS_PER_CALL: "4096,plan=64",
    }) as LlmEndpoint;
    const { llm } = client(endpoint);
    await expect(llm.call("plan", vars, planSchema)).rejects.toThrow(
      "plan: the answer was cut off at the completion token limit (64; AUTOGEN_LLM_MAX_TOKENS_PER_CALL raises it)",
    );
    expect(server.requests).toHaveLength(1);
    expect(server.requests[0]?.max_completion_tokens).toBe(64);
    // A stage may ask for less than its cap, never more.
    const small = await serve((request, res) => sendStream(request, res, tokens(PLAN)));
    const second = client({ ...endpoint, baseURL: small.baseURL });
    await second.llm.call("plan", vars, planSchema, { maxCompletionTokens: 32 });
    await second.llm.call("plan", vars, planSchema, { maxCompletionTokens: 10_000 });
    await second.llm.call(
      "implement",
      {
        trusted: { plan: "1. x", verification: "(none)" },
        untrusted: { problem: "p", tests: "t", code: "c", knowledge: "k", hint: "" },
      },
      planSchema,
    );
    expect(small.requests.map((r) => r.max_completion_tokens)).toEqual([32, 64, 4096]);
  });
});

describe("retries", () => {
  it("resends after 429 and 5xx with backoff, honouring retry-after", async () => {
    const server = await serve((request, res, index) => {
      if (index === 0) {
        res.writeHead(429, { "content-type": "application/json", "retry-after-ms": "200" });
        return void res.end(JSON.stringify({ error: { message: "Rate limit reached", type: "requests" } }));
      }
      if (index === 1) return sendJson(res, 503, { error: { message: "model is loading", type: "server_error" } });
      return sendStream(request, res, tokens(PLAN));
    });
    const { llm, sink, budget } = client(local(server.baseURL), { maxRetries: 2 });
    const started = Date.now();
    expect((await llm.call("plan", vars, planSchema)).attempts).toBe(1);
    expect(Date.now() - started).toBeGreaterThanOrEqual(200);
    expect(server.requests).toHaveLength(3);
    expect(sink.entries).toHaveLength(1);
    expect(budget.state.llmCalls).toBe(1);
  });

  it("resends after a connection reset before any byte of the answer", async () => {
    const server = await serve((request, res, index) => {
      if (index === 0) return void res.socket?.destroy();
      return sendStream(request, res, tokens(PLAN));
    });
    const { llm } = client(local(server.baseURL), { maxRetries: 1 });
    expect((await llm.call("plan", vars, planSchema)).value.steps).toHaveLength(1);
    expect(server.requests).toHaveLength(2);
  });

  it("stops after maxRetries, and never resends a 504 (the model behind the proxy may still be generating)", async () => {
    const busy = await serve((_request, res) =>
      sendJson(res, 500, { error: { message: "internal error", type: "server_error" } }),
    );
    const first = client(local(busy.baseURL), { maxRetries: 2 });
    await expect(first.llm.call("plan", vars, planSchema)).rejects.toThrow(
      `plan: the model server at ${busy.baseURL} answered 500 internal error (after 2 retries)`,
    );
    expect(busy.requests).toHaveLength(3);

    const gateway = await serve((_request, res) => sendJson(res, 504, { error: { message: "upstream timed out" } }));
    const second = client(local(gateway.baseURL), { maxRetries: 2 });
    await expect(second.llm.call("plan", vars, planSchema)).rejects.toThrow(`answered 504 upstream timed out`);
    expect(gateway.requests).toHaveLength(1);
  });

  it("retries a refused connection, then names the server it could not reach", async () => {
    const gone = await serve(() => undefined);
    await gone.close();
    servers.splice(servers.indexOf(gone), 1);
    const { llm, sink } = client(local(gone.baseURL), { maxRetries: 1 });
    const error = await llm.call("plan", vars, planSchema).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(LlmStageError);
    expect((error as Error).message).toMatch(
      new RegExp(
        `^plan: could not reach the model server at ${gone.baseURL.replaceAll(".", "\\.")}: .* \\(after 1 retry\\)$`,
      ),
    );
    expect(sink.entries[0]?.error).toContain("could not reach");
  });
});
