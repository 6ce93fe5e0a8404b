// The webhook ingress as a hostile client meets it: oversized bodies (signed or not) are
// refused while streaming, slow-drip connections are closed by the configured timeouts,
// the connection count is capped, and malformed JSON gets a fixed sentence.
import { createHmac } from "node:crypto";
import { mkdtemp } from "node:fs/promises";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { signPayload } from "../support/webhook-examples.ts";

const secret = "bounded-ingress-secret";
const MAX_BODY = 1024 * 1024;
let running: RunningServer;
let port: number;

// No nock here: nothing in this file calls GitHub, and nock's interceptor wraps raw
// sockets, which hides the server's timeouts from a slow-drip client.

beforeAll(async () => {
  const config = loadServerConfig({
    APP_ID: "42",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "fatal",
    AUTOGEN_DB_PATH: join(await mkdtemp(join(tmpdir(), "autogen-ingress-")), "autogen.db"),
  });
  running = await startServer(config, {
    limits: {
      maxBodyBytes: MAX_BODY,
      headersTimeoutMs: 1_000,
      requestTimeoutMs: 2_000,
      idleTimeoutMs: 3_000,
      checkIntervalMs: 200,
      maxConnections: 6,
    },
  });
  port = (running.http.address() as { port: number }).port;
});

afterAll(async () => {
  await running.stop();
});

const CHUNK = Buffer.alloc(64 * 1024, "a");

/** A JSON body of `total` bytes made on the fly, and its signature computed the same way. */
function bigBody(total: number): { stream: () => Readable; signature: string } {
  const head = Buffer.from('{"action":"labeled","pad":"');
  const tail = Buffer.from('"}');
  const chunks = function* () {
    yield head;
    let left = total - head.length - tail.length;
    while (left > 0) {
      const n = Math.min(left, CHUNK.length);
      yield CHUNK.subarray(0, n);
      left -= n;
    }
    yield tail;
  };
  const hmac = createHmac("sha256", secret);
  for (const c of chunks()) hmac.update(c);
  return { stream: () => Readable.from(chunks(), { objectMode: false }), signature: `sha256=${hmac.digest("hex")}` };
}

/** POSTs a streamed body; resolves with the status as soon as the server answers (the upload may be cut). */
function postStream(body: Readable, headers: Record<string, string>): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/github/webhooks",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": `big-${Math.random()}`,
        ...headers,
      },
    });
    let answered = false;
    req.on("response", (res) => {
      answered = true;
      const parts: Buffer[] = [];
      res.on("data", (c: Buffer) => parts.push(c));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
      res.on("error", () => resolve({ status: res.statusCode ?? 0, text: Buffer.concat(parts).toString() }));
    });
    req.on("error", (error) => {
      if (!answered) reject(error);
    });
    body.on("error", () => undefined);
    body.pipe(req);
  });
}

/** Samples the process's heap and buffers while `work` runs; returns the peak growth. */
async function peakGrowth<T>(work: () => Promise<T>): Promise<{ result: T; growth: number }> {
  global.gc?.();
  const used = () => {
    const m = process.memoryUsage();
    return m.heapUsed + m.arrayBuffers;
  };
  const base = used();
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, used())), 5);
  try {
    const result = await work();
    peak = Math.max(peak, used());
    return { result, growth: peak - base };
  } finally {
    clearInterval(timer);
  }
}

describe("body size limit", () => {
  const total = 48 * 1024 * 1024;

  it.each([
    ["unsigned, with Content-Length", false, true],
    ["signed, with Content-Length", true, true],
    ["unsigned, chunked", false, false],
    ["signed, chunked", true, false],
  ])("refuses a 48 MB body (%s) with 413 without buffering it", async (_label, signed, withLength) => {
    const body = bigBody(total);
    const headers: Record<string, string> = {
      "x-hub-signature-256": signed ? body.signature : "sha256=" + "0".repeat(64),
    };
    if (withLength) headers["content-length"] = String(total);
    const { result, growth } = await peakGrowth(() => postStream(body.stream(), headers));
    expect(result.status).toBe(413);
    expect(JSON.parse(result.text)).toEqual({ message: `the body is larger than ${MAX_BODY} bytes` });
    // Generous: the limit is 1 MB and the body 48 MB; buffering it would show ~48 MB.
    expect(growth).toBeLessThan(24 * 1024 * 1024);
  });

  it("still accepts a signed body under the limit afterwards", async () => {
    const payload = JSON.stringify({ action: "created", comment: { body: "thanks" } });
    const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": "small-1",
        "x-hub-signature-256": signPayload(secret, payload),
      },
      body: payload,
    });
    expect(response.status).toBe(202);
  });
});

describe("malformed requests", () => {
  const post = (body: string, signature: string) =>
    fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "issues",
        "x-github-delivery": `bad-${Math.random()}`,
        "x-hub-signature-256": signature,
      },
      body,
    });

  it("answers malformed JSON with a valid signature with 400 and a fixed sentence", async () => {
    const body = '{"action": "labeled", "issue": {';
    const response = await post(body, signPayload(secret, body));
    expect(response.status).toBe(400);
    const text = await response.text();
    expect(JSON.parse(text)).toEqual({ message: "the body is not valid JSON" });
    expect(text).not.toMatch(/SyntaxError|Unexpected|position|at \w+ \(/);
  });

  it("answers a JSON array with 400", async () => {
    const response = await post("[1,2]", signPayload(secret, "[1,2]"));
    expect(response.status).toBe(400);
  });

  it("answers a bad signature with 401 whatever the body", async () => {
    const response = await post("{not json", "sha256=" + "1".repeat(64));
    expect(response.status).toBe(401);
    expect(await response.json()).toEqual({ message: "the signature does not match" });
  });
});

/** Opens a raw TCP connection and resolves when the server closes it. */
function rawConnection(): { socket: Socket; closed: Promise<void>; received: () => string } {
  const socket = connect(port, "127.0.0.1");
  let text = "";
  socket.on("data", (d: Buffer) => (text += d.toString()));
  socket.on("error", () => undefined);
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  return { socket, closed, received: () => text };
}

describe("slow clients", () => {
  it("closes a connection that drips its headers", async () => {
    const { socket, closed } = rawConnection();
    socket.write("POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\n");
    let sent = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed) socket.write(`x-drip-${sent++}: 1\r\n`);
    }, 100);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(socket.destroyed).toBe(true);
  });

  it("closes a connection that drips its body", async () => {
    const { socket, closed, received } = rawConnection();
    const body = '{"action":"labeled"}'.padEnd(100_000, " ");
    socket.write(
      `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-github-event: issues\r\nx-github-delivery: drip-1\r\nx-hub-signature-256: ${signPayload(secret, body)}\r\ncontent-length: ${body.length}\r\n\r\n`,
    );
    let offset = 0;
    const drip = setInterval(() => {
      if (!socket.destroyed && offset < body.length) socket.write(body.slice(offset, (offset += 10)));
    }, 100);
    try {
      await closed;
    } finally {
      clearInterval(drip);
    }
    expect(offset).toBeLessThan(body.length);
    expect(received()).not.toMatch(/HTTP\/1\.1 20\d/);
  });

  it("keeps no more connections open than the cap", async () => {
    const connections = Array.from({ length: 12 }, () => rawConnection());
    const closedEarly: number[] = [];
    connections.forEach((c, i) => void c.closed.then(() => closedEarly.push(i)));
    // The server drops every connection past the cap (6) as it accepts it.
    while (closedEarly.length < 6) await new Promise((resolve) => setTimeout(resolve, 20));
    const open = connections.filter((c) => !c.socket.destroyed).length;
    expect(open).toBeLessThanOrEqual(6);
    for (const c of connections) c.socket.destroy();
    await Promise.all(connections.map((c) => c.closed));
  });
});
