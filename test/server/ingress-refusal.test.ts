// How a refused webhook request ends, as a sender sees it: the body limit comes from
// AUTOGEN_WEBHOOK_MAX_BODY_BYTES, an oversized delivery is logged for the operator, a
// sender still uploading reads the 413 and finishes without a reset (so GitHub's delivery
// log shows why), and a sender that never stops is cut off after GitHub's own cap.
import { mkdtemp } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { signPayload } from "../support/webhook-examples.ts";

const secret = "ingress-refusal-secret";
const LIMIT = 128 * 1024;
const lines: Array<Record<string, unknown>> = [];
let running: RunningServer;
let port: number;

beforeAll(async () => {
  const logDestination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString().split("\n").filter(Boolean))
        lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  const env = {
    APP_ID: "42",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "warn" as const,
    AUTOGEN_WEBHOOK_MAX_BODY_BYTES: String(LIMIT),
  };
  const config = loadServerConfig({
    ...env,
    AUTOGEN_DB_PATH: join(await mkdtemp(join(tmpdir(), "autogen-refusal-")), "autogen.db"),
  });
  // Request and idle timeouts far beyond any test's: a refused connection that closes was closed by the linger.
  running = await startServer(config, {
    logDestination,
    limits: { headersTimeoutMs: 600_000, requestTimeoutMs: 600_000, idleTimeoutMs: 600_000 },
  });
  port = (running.http.address() as { port: number }).port;
});

afterAll(async () => {
  await running.stop();
});

const hook = () => `http://127.0.0.1:${port}/api/github/webhooks`;
const bodyOf = (bytes: number) => JSON.stringify({ action: "created", pad: "a".repeat(bytes - 30) });

describe("the body limit from the environment", () => {
  it("refuses a signed body over AUTOGEN_WEBHOOK_MAX_BODY_BYTES with 413 and logs it for the operator; accepts one under it", async () => {
    const big = bodyOf(LIMIT + 1024);
    const refused = await fetch(hook(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": "over-1",
        "x-hub-signature-256": signPayload(secret, big),
      },
      body: big,
    });
    expect(refused.status).toBe(413);
    expect(await refused.json()).toEqual({ message: `the body is larger than ${LIMIT} bytes` });
    const line = lines.find((l) => l.deliveryId === "over-1");
    expect(line).toMatchObject({
      msg: "webhook body over the limit refused (AUTOGEN_WEBHOOK_MAX_BODY_BYTES)",
      event: "star",
      maxBodyBytes: LIMIT,
    });

    const small = bodyOf(LIMIT - 1024);
    const accepted = await fetch(hook(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": "under-1",
        "x-hub-signature-256": signPayload(secret, small),
      },
      body: small,
    });
    expect(accepted.status).toBe(202);
  });
});

/** A raw upload: headers, then body bytes on demand; records what came back and how the connection ended. */
function rawUpload(headers: string) {
  // Half-open allowed: the upload goes on after the server's FIN, as an HTTP client's body stream does.
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  let received = "";
  let error: string | undefined;
  socket.on("data", (d: Buffer) => (received += d.toString()));
  socket.on("error", (e: NodeJS.ErrnoException) => (error = e.code ?? e.message));
  const ended = new Promise<void>((resolve) => socket.on("end", () => resolve()));
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  socket.write(headers);
  return { socket, ended, closed, received: () => received, error: () => error };
}

const headersFor = (length: number | undefined, id: string) =>
  `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-github-event: issues\r\nx-github-delivery: ${id}\r\nx-hub-signature-256: sha256=${"0".repeat(64)}\r\n` +
  (length === undefined ? "transfer-encoding: chunked\r\n" : `content-length: ${length}\r\n`) +
  "\r\n";

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 30_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe("a refused sender", () => {
  it("that keeps uploading after the 413 reads it, finishes its body without a reset, and is then closed", async () => {
    const total = 3 * 1024 * 1024;
    const upload = rawUpload(headersFor(total, "still-sending"));
    upload.socket.write(Buffer.alloc(64 * 1024, "a"));
    // The answer comes before the body is done...
    await until(() => upload.received().includes("\r\n\r\n"), "the answer");
    expect(upload.received()).toMatch(/^HTTP\/1\.1 413 /);
    // ...and the rest of the body still goes through: the server discards it rather than
    // closing on it (a close would reset the upload: EPIPE or ECONNRESET here).
    const chunk = Buffer.alloc(64 * 1024, "a");
    for (let sent = 64 * 1024; sent < total && !upload.error(); sent += chunk.length) {
      if (!upload.socket.write(chunk))
        await Promise.race([new Promise((resolve) => upload.socket.once("drain", resolve)), upload.closed]);
    }
    await upload.ended;
    upload.socket.end();
    await upload.closed;
    expect(upload.error()).toBeUndefined();
  });

  it("that never stops is cut off after at most GitHub's 25 MB", async () => {
    const upload = rawUpload(headersFor(undefined, "never-stops"));
    const chunk = Buffer.from(`10000\r\n${"a".repeat(0x10000)}\r\n`);
    let written = 0;
    let closed = false;
    void upload.closed.then(() => (closed = true));
    while (!closed && written < 200 * 1024 * 1024) {
      if (!upload.socket.write(chunk))
        await Promise.race([new Promise((resolve) => upload.socket.once("drain", resolve)), upload.closed]);
      written += chunk.length;
    }
    expect(closed).toBe(true);
    // 25 MiB discarded, plus what the two sockets' buffers held when it was cut.
    expect(written).toBeLessThan(40 * 1024 * 1024);
    expect(upload.received()).toMatch(/^HTTP\/1\.1 413 /);
  });
});

describe("a request pipelined behind a refused one", () => {
  const signed = (id: string) => {
    const body = '{"action":"created"}';
    return `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-github-event: star\r\nx-github-delivery: ${id}\r\nx-hub-signature-256: ${signPayload(secret, body)}\r\ncontent-length: ${body.length}\r\n\r\n${body}`;
  };
  const refusedFirst: Array<[string, (id: string) => string]> = [
    [
      "415 (wrong content type)",
      (id) =>
        `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: text/plain\r\nx-github-event: star\r\nx-github-delivery: ${id}\r\ncontent-length: 2\r\n\r\n{}`,
    ],
    [
      "400 (no signature)",
      (id) =>
        `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-github-event: star\r\nx-github-delivery: ${id}\r\ncontent-length: 2\r\n\r\n{}`,
    ],
    [
      "413 (a chunked body over the limit that then ends)",
      (id) => `${headersFor(undefined, id)}${(LIMIT + 16).toString(16)}\r\n${"a".repeat(LIMIT + 16)}\r\n0\r\n\r\n`,
    ],
  ];

  it.each(refusedFirst)("is neither answered nor stored after a %s", async (_label, refused) => {
    const piped = `piped-${Math.random().toString(36).slice(2)}`;
    // One write: the refused request, its whole body, then a signed delivery on the same connection.
    const upload = rawUpload(refused(`refused-${piped}`) + signed(piped));
    await upload.ended;
    upload.socket.end();
    await upload.closed;
    expect(upload.received()).toMatch(/^HTTP\/1\.1 4\d\d /);
    expect(upload.received()).not.toMatch(/HTTP\/1\.1 20\d/);
    // A delivery sent afterwards on its own connection is committed after anything read before it.
    const marker = signed(`marker-${piped}`);
    const after = rawUpload(marker);
    await until(() => after.received().includes("\r\n\r\n"), "the marker's answer");
    expect(after.received()).toMatch(/^HTTP\/1\.1 202 /);
    after.socket.destroy();
    expect(await running.store.inbox(piped)).toBeUndefined();
    expect(await running.store.inbox(`refused-${piped}`)).toBeUndefined();
  });
});

describe("a refused sender that tries to keep the connection", () => {
  /** Sends a byte every 50 ms until the server closes the connection; resolves with what came back. */
  async function dripUntilClosed(upload: ReturnType<typeof rawUpload>, byte: string): Promise<string> {
    const drip = setInterval(() => {
      if (!upload.socket.destroyed) upload.socket.write(byte);
    }, 50);
    try {
      await upload.closed;
    } finally {
      clearInterval(drip);
    }
    return upload.received();
  }

  it.each([
    ["a declared body over the limit, dripped", () => rawUpload(headersFor(LIMIT * 100, "drip-413")), "a"],
    [
      "a chunked body with the wrong content type, dripped",
      () => rawUpload(headersFor(undefined, "drip-415").replace("application/json", "text/plain") + "100000\r\n"),
      "a",
    ],
    [
      "a refusal whose body ended, followed by headers dripped for a second request",
      () =>
        rawUpload(
          headersFor(2, "drip-400").replace(/x-hub-signature-256: [^\r]*\r\n/, "") +
            "{}POST /api/github/webhooks HTTP/1.1\r\n",
        ),
      "x",
    ],
  ])(
    "is closed by the linger (or its body's end), not by the much later request or idle timeout: %s",
    async (_label, open, byte) => {
      const upload = open();
      const received = await dripUntilClosed(upload, byte);
      expect(received).toMatch(/^HTTP\/1\.1 4\d\d /);
      expect(received.match(/HTTP\/1\.1/g)).toHaveLength(1);
    },
    120_000,
  );

  it("a signed, valid delivery over the limit is not stored", async () => {
    const big = bodyOf(LIMIT + 1024);
    const refused = await fetch(hook(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": "over-stored",
        "x-hub-signature-256": signPayload(secret, big),
      },
      body: big,
    });
    expect(refused.status).toBe(413);
    const small = bodyOf(1024);
    const marker = await fetch(hook(), {
      method: "POST",
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": "over-stored-marker",
        "x-hub-signature-256": signPayload(secret, small),
      },
      body: small,
    });
    expect(marker.status).toBe(202);
    expect(await running.store.inbox("over-stored")).toBeUndefined();
  });
});
