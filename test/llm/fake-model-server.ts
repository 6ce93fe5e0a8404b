// A real HTTP server on 127.0.0.1 that answers Chat Completions the way OpenAI-compatible
// model servers do (whole JSON, SSE chunks, error bodies, silence), so the real openai SDK
// runs end to end. It keeps every request it received, to count resends.
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

export type ReceivedRequest = {
  model: string;
  messages: Array<{ role: string; content: string }>;
  stream?: boolean;
  stream_options?: { include_usage?: boolean };
  max_completion_tokens?: number;
  response_format?: { type: string; json_schema?: { name: string; strict?: boolean; schema: unknown } };
};

export type Handler = (request: ReceivedRequest, res: ServerResponse, index: number) => void | Promise<void>;

export type FakeModelServer = { baseURL: string; requests: ReceivedRequest[]; close(): Promise<void> };

export async function fakeModelServer(handler: Handler): Promise<FakeModelServer> {
  const requests: ReceivedRequest[] = [];
  const open = new Set<ServerResponse>();
  const server = createServer((req: IncomingMessage, res: ServerResponse) => {
    const parts: Buffer[] = [];
    req.on("data", (part: Buffer) => parts.push(part));
    req.on("end", () => {
      const body = JSON.parse(Buffer.concat(parts).toString("utf8")) as ReceivedRequest;
      requests.push(body);
      open.add(res);
      res.on("close", () => open.delete(res));
      void Promise.resolve(handler(body, res, requests.length - 1)).catch(() => res.destroy());
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseURL: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const res of open) res.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

export function sendJson(res: ServerResponse, status: number, body: unknown): void {
  res.writeHead(status, { "content-type": "application/json" });
  res.end(JSON.stringify(body));
}

// Every completion gets an id of its own, as real servers give (the client takes a repeated
// id with a repeated answer for a cache's answer).
let completions = 0;
const completionId = () => `chatcmpl-local-${++completions}`;

/** A whole (non-streamed) completion, as a server that ignores `stream` sends it. */
export function sendCompletion(res: ServerResponse, content: string): void {
  sendJson(res, 200, {
    id: completionId(),
    object: "chat.completion",
    created: 0,
    model: "local",
    choices: [{ index: 0, finish_reason: "stop", message: { role: "assistant", content } }],
    usage: { prompt_tokens: 50, completion_tokens: 10, total_tokens: 60 },
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export type StreamPlan = {
  /** Pause before each piece (the first one too: a model thinking before its first token). */
  gapMs?: number;
  /** Send this usage in a last chunk when the request asks for it (stream_options.include_usage). */
  usage?: { prompt: number; completion: number };
  finishReason?: "stop" | "length";
  /** Stop after these pieces without finishing, keeping the connection open. */
  hangAfter?: boolean;
};

/** Streams `pieces` as SSE chunks the way vLLM, llama.cpp and Ollama do. */
export async function sendStream(
  request: ReceivedRequest,
  res: ServerResponse,
  pieces: string[],
  plan: StreamPlan = {},
): Promise<void> {
  res.writeHead(200, { "content-type": "text/event-stream", "cache-control": "no-cache" });
  const id = completionId();
  const chunk = (choices: unknown[], extra: Record<string, unknown> = {}) =>
    res.write(
      `data: ${JSON.stringify({ id, object: "chat.completion.chunk", created: 0, model: "local", choices, ...extra })}\n\n`,
    );
  for (const [i, piece] of pieces.entries()) {
    if (plan.gapMs) await sleep(plan.gapMs);
    if (res.destroyed) return;
    chunk([
      { index: 0, delta: i === 0 ? { role: "assistant", content: piece } : { content: piece }, finish_reason: null },
    ]);
  }
  if (plan.hangAfter) return;
  chunk([{ index: 0, delta: {}, finish_reason: plan.finishReason ?? "stop" }]);
  if (plan.usage && request.stream_options?.include_usage)
    chunk([], {
      usage: {
        prompt_tokens: plan.usage.prompt,
        completion_tokens: plan.usage.completion,
        total_tokens: plan.usage.prompt + plan.usage.completion,
      },
    });
  res.end("data: [DONE]\n\n");
}

/** Splits text into pieces of a few characters, as tokens arrive. */
export function tokens(text: string, size = 6): string[] {
  const out: string[] = [];
  for (let i = 0; i < text.length; i += size) out.push(text.slice(i, i + size));
  return out;
}
