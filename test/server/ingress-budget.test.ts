// The shared in-flight budget as a hostile client meets it: a body is counted as its bytes
// come, so a sender that declares the limit and sends one byte holds one byte, and only a
// sender that has really sent the budget's worth turns honest senders away (503). This
// file checks that, that such a hold ends with the request timeout whatever the staller
// does, that every way a body can end gives its bytes back, and that malformed lengths
// never reach the budget. A body costs twice its bytes (the bytes and the text stored) and
// the budget is twice the body limit here: one staller holds all of it, and a
// second body of the limit fits only if every byte of the first came back.
import { mkdtemp } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { signPayload } from "../support/webhook-examples.ts";

const secret = "ingress-budget-secret";
const LIMIT = 256 * 1024;
let running: RunningServer;
let port: number;

beforeAll(async () => {
  const config = loadServerConfig({
    APP_ID: "42",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "fatal",
    AUTOGEN_DB_PATH: join(await mkdtemp(join(tmpdir(), "autogen-budget-")), "autogen.db"),
  });
  // The idle timeout is far beyond the request timeout: a staller that drips is ended by the request timeout alone.
  running = await startServer(config, {
    limits: {
      maxBodyBytes: LIMIT,
      maxInFlightBytes: 2 * LIMIT,
      headersTimeoutMs: 1_500,
      requestTimeoutMs: 2_000,
      idleTimeoutMs: 60_000,
      checkIntervalMs: 200,
    },
  });
  port = (running.http.address() as { port: number }).port;
});

afterAll(async () => {
  await running.stop();
});

async function until(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

/** A raw connection: what came back, and how it ended. */
function raw(first: string | Buffer) {
  const socket = connect({ port, host: "127.0.0.1", allowHalfOpen: true });
  let received = "";
  socket.on("data", (d: Buffer) => (received += d.toString()));
  socket.on("error", () => undefined);
  let isClosed = false;
  const closed = new Promise<void>((resolve) => socket.on("close", () => resolve()));
  void closed.then(() => (isClosed = true));
  socket.on("end", () => socket.end());
  socket.write(first);
  return { socket, closed, isClosed: () => isClosed, received: () => received };
}

const headers = (extra: string, id: string, signature = `sha256=${"0".repeat(64)}`) =>
  `POST /api/github/webhooks HTTP/1.1\r\nHost: x\r\ncontent-type: application/json\r\nx-github-event: star\r\nx-github-delivery: ${id}\r\nx-hub-signature-256: ${signature}\r\n${extra}\r\n`;

/** A body of exactly the limit: `{"a":"bbb…` and then `last`. */
const bodyOfLimit = (last: string) => `{"a":"${"b".repeat(LIMIT - 6 - last.length)}${last}`;

/** Declares a body of the whole budget and sends all of it but its last two bytes (signed for `body`, when given). */
const staller = (id: string, body?: string) =>
  raw(
    headers(`content-length: ${LIMIT}\r\n`, id, body === undefined ? undefined : signPayload(secret, body)) +
      bodyOfLimit('"}').slice(0, -2),
  );
/** What a staller has left to send to complete `body`. */
const rest = (body: string) => body.slice(-2);

/** A small signed delivery from an honest sender: 202, or 503 while the budget is held. */
async function honest(id: string): Promise<number> {
  const body = '{"action":"created"}';
  const response = await fetch(`http://127.0.0.1:${port}/api/github/webhooks`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "star",
      "x-github-delivery": id,
      "x-hub-signature-256": signPayload(secret, body),
    },
    body,
  });
  await response.arrayBuffer();
  return response.status;
}

let seq = 0;
const nextId = (what: string) => `${what}-${seq++}`;

/** Waits until the budget is seen held: honest senders are turned away. */
async function heldNow(): Promise<void> {
  await until(async () => (await honest(nextId("probe"))) === 503, "an honest sender turned away with 503");
}

/**
 * The whole budget is free: a staller of the full limit gets it (honest senders are turned
 * away while it holds it) and, finishing its body, is read to the end (401: unsigned), not
 * refused 503. Any byte not given back before would make it 503.
 */
async function wholeBudgetIsBack(): Promise<void> {
  const s = staller(nextId("check"));
  await heldNow();
  s.socket.write(rest(bodyOfLimit('"}')));
  await until(() => s.received().includes("\r\n\r\n"), "the checker's answer");
  expect(s.received()).toMatch(/^HTTP\/1\.1 401 /);
  s.socket.destroy();
  await s.closed;
  expect(await honest(nextId("after-check"))).toBe(202);
}

describe("a sender that declares the limit and stalls", () => {
  it("holds only the bytes it sent: many that declare the limit and send one byte turn no honest sender away", async () => {
    const stallers = Array.from({ length: 16 }, () =>
      raw(headers(`content-length: ${LIMIT}\r\n`, nextId("one-byte")) + "{"),
    );
    // Each has sent its byte (the server read it) before the honest ones come.
    await new Promise((resolve) => setTimeout(resolve, 300));
    for (let i = 0; i < 5; i++) expect(await honest(nextId("beside-one-byte"))).toBe(202);
    for (const st of stallers) st.socket.destroy();
    await Promise.all(stallers.map((st) => st.closed));
    await wholeBudgetIsBack();
  }, 90_000);

  it("holds the budget until the request timeout ends it, dripping or not, and never longer", async () => {
    const s = staller(nextId("stall"));
    await heldNow();
    // One byte every 100 ms keeps the connection from ever being idle; only the request timeout can end it.
    const drip = setInterval(() => {
      if (!s.socket.destroyed) s.socket.write(" ");
    }, 100);
    try {
      await s.closed;
    } finally {
      clearInterval(drip);
    }
    expect(s.received()).not.toMatch(/HTTP\/1\.1 20\d/);
    await wholeBudgetIsBack();
  }, 90_000);

  it("many stallers: the first takes the budget, the rest are refused 503 at their first bytes and hold nothing", async () => {
    const first = staller(nextId("first"));
    await heldNow();
    const others = Array.from({ length: 8 }, () => staller(nextId("rest")));
    await until(() => others.every((r) => r.received().includes("\r\n\r\n")), "every later staller answered");
    for (const r of others) expect(r.received()).toMatch(/^HTTP\/1\.1 503 /);
    await Promise.all(others.map((r) => r.closed));
    first.socket.destroy();
    await first.closed;
    await wholeBudgetIsBack();
  }, 90_000);
});

describe("every way a held body ends gives the budget back", () => {
  const malformed = bodyOfLimit('" ');
  const endings: Array<[string, string | undefined, (s: ReturnType<typeof staller>) => Promise<void>]> = [
    ["the sender closes the connection", undefined, async (s) => void s.socket.destroy()],
    ["the sender resets the connection", undefined, async (s) => void s.socket.resetAndDestroy()],
    ["the sender half-closes mid-body", undefined, async (s) => void s.socket.end()],
    [
      "the body completes, unsigned (401)",
      undefined,
      async (s) => {
        s.socket.write(rest(bodyOfLimit('"}')));
        await until(() => s.received().includes("\r\n\r\n"), "the answer");
        expect(s.received()).toMatch(/^HTTP\/1\.1 401 /);
        s.socket.destroy();
      },
    ],
    [
      "the body completes, signed but not JSON (400)",
      malformed,
      async (s) => {
        s.socket.write(rest(malformed));
        await until(() => s.received().includes("\r\n\r\n"), "the answer");
        expect(s.received()).toMatch(/^HTTP\/1\.1 400 /);
        s.socket.destroy();
      },
    ],
    [
      "more bytes come than declared (the rest parsed as a bad request)",
      undefined,
      async (s) => {
        s.socket.write(`${rest(bodyOfLimit('"}'))}garbage that is not a request\r\n\r\n`);
        await s.closed;
      },
    ],
  ];

  it.each(endings)(
    "%s",
    async (_label, signedFor, end) => {
      const s = staller(nextId("held"), signedFor);
      await heldNow();
      await end(s);
      await s.closed;
      await wholeBudgetIsBack();
    },
    90_000,
  );
});

describe("lengths that are not a length", () => {
  it.each([
    ["a negative Content-Length", "content-length: -1\r\n"],
    ["a non-numeric Content-Length", "content-length: 12abc\r\n"],
    ["a hexadecimal Content-Length", "content-length: 0x40000\r\n"],
    ["two different Content-Lengths", `content-length: 2\r\ncontent-length: ${LIMIT}\r\n`],
    ["Content-Length and Transfer-Encoding", `content-length: ${LIMIT}\r\ntransfer-encoding: chunked\r\n`],
    ["a Transfer-Encoding that is not chunked last", "transfer-encoding: chunked, identity\r\n"],
  ])(
    "%s: refused by the parser before the handler; nothing stored, nothing held",
    async (_label, extra) => {
      const id = nextId("bad-length");
      const body = '{"action":"created"}';
      const s = raw(headers(extra, id, signPayload(secret, body)) + body);
      await s.closed;
      expect(s.received()).toMatch(/^HTTP\/1\.1 400 /);
      expect(await running.store.inbox(id)).toBeUndefined();
      await wholeBudgetIsBack();
    },
    90_000,
  );
});

describe("a request pipelined behind a 503", () => {
  it("is neither read nor stored", async () => {
    // The holder leaves 100 bytes of the budget: a 200-byte body is refused 503, a 20-byte delivery would fit.
    const holder = raw(headers(`content-length: ${LIMIT - 100}\r\n`, nextId("holder")) + "{".padEnd(LIMIT - 101, " "));
    const refused = (id: string) => headers("content-length: 200\r\n", id) + `{"a":"${"b".repeat(192)}"}`;
    await until(async () => {
      const r = raw(refused(nextId("probe-200")));
      await r.closed;
      return /^HTTP\/1\.1 503 /.test(r.received());
    }, "a 200-byte body refused 503");
    const body = '{"action":"created"}';
    const piped = nextId("piped-after-503");
    const s = raw(
      refused(nextId("refused")) +
        headers(`content-length: ${body.length}\r\n`, piped, signPayload(secret, body)) +
        body,
    );
    await s.closed;
    expect(s.received()).toMatch(/^HTTP\/1\.1 503 /);
    expect(s.received()).not.toMatch(/HTTP\/1\.1 20\d/);
    holder.socket.destroy();
    await holder.closed;
    // Committed after anything read before it.
    expect(await honest(nextId("marker"))).toBe(202);
    expect(await running.store.inbox(piped)).toBeUndefined();
    await wholeBudgetIsBack();
  }, 90_000);
});
