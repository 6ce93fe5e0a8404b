// The in-flight budget covers an accepted body until the store has it, not only while its
// bytes are read: the buffer and the text handed to the store live on until the commit.
// The store here is a gate the test opens (the accept port of webhookIngress), so bodies
// read completely pile up in front of it as they would behind a slow group commit. With a
// budget of two bodies (each costs twice its bytes), eight signed bodies sent at once:
// at most two reach the store, the rest are answered 503, and once the gate opens the
// budget is whole again. Nothing here depends on timing.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { DEFAULT_INGRESS_LIMITS } from "../../src/server/ingress-limits.ts";
import { webhookIngress, type Delivery } from "../../src/server/webhook-ingress.ts";
import { signPayload } from "../support/webhook-examples.ts";

const secret = "held-bodies-secret";
const LIMIT = 256 * 1024;
const BODIES_IN_BUDGET = 2;
const quiet = { warn: () => undefined, error: () => undefined };

let server: Server;
let url: string;
const atStore: Delivery[] = [];
let open: () => void = () => undefined;
let gate = new Promise<void>((resolve) => (open = resolve));

beforeAll(async () => {
  const ingress = webhookIngress({
    path: "/hooks",
    secret,
    log: quiet,
    limits: { ...DEFAULT_INGRESS_LIMITS, maxBodyBytes: LIMIT, maxInFlightBytes: 2 * LIMIT * BODIES_IN_BUDGET },
    accept: async (delivery) => {
      atStore.push(delivery);
      await gate;
      return "accepted";
    },
  });
  server = createServer((req, res) => void ingress(req, res));
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`;
});

afterAll(async () => {
  open();
  await new Promise((resolve) => server.close(resolve));
});

let seq = 0;
/** A signed body of exactly the limit in bytes. */
function post(fill = "b"): { status: Promise<number>; id: string } {
  const id = `held-${seq++}`;
  const text = `{"a":"${fill.repeat(Math.floor((LIMIT - 8) / Buffer.byteLength(fill)))}"}`;
  const body = text + " ".repeat(LIMIT - Buffer.byteLength(text));
  const status = fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": id,
      "x-hub-signature-256": signPayload(secret, body),
    },
    body,
  })
    .then(async (r) => {
      await r.arrayBuffer();
      return r.status;
    })
    .catch(() => 0);
  return { status, id };
}

async function until(check: () => boolean, what: string): Promise<void> {
  const end = Date.now() + 60_000;
  while (!check()) {
    if (Date.now() > end) throw new Error(`never: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe("bodies read but not yet stored stay charged to the budget", () => {
  it("eight signed bodies at once against a budget of two: at most two reach the store, the rest get 503, then the budget is whole again", async () => {
    const sent = Array.from({ length: 8 }, () => post());
    const answered = new Map<string, number>();
    for (const s of sent) void s.status.then((code) => answered.set(s.id, code));
    // Every body has either reached the store (held at the gate) or been answered.
    await until(
      () => sent.every((s) => answered.has(s.id) || atStore.some((d) => d.id === s.id)),
      "every body stored or answered",
    );
    const refused = [...answered.values()].filter((code) => code === 503).length;
    expect(atStore.length).toBeGreaterThanOrEqual(1);
    expect(atStore.length).toBeLessThanOrEqual(BODIES_IN_BUDGET);
    expect(atStore.length * 2 * LIMIT).toBeLessThanOrEqual(2 * LIMIT * BODIES_IN_BUDGET);
    expect(refused).toBe(sent.length - atStore.length);
    open();
    const codes = await Promise.all(sent.map((s) => s.status));
    expect(codes.filter((c) => c === 202).length).toBe(atStore.length);
    // Released after the store: a full budget's worth of bodies is accepted again.
    atStore.length = 0;
    const again = [post(), post()];
    expect(await Promise.all(again.map((s) => s.status))).toEqual([202, 202]);
  }, 90_000);

  it("a body that is not ASCII is charged a third copy (its text is a two-byte string): two such bodies do not fit a budget of two ASCII ones", async () => {
    gate = new Promise<void>((resolve) => (open = resolve));
    atStore.length = 0;
    const sent = [post("é"), post("é")];
    const answered = new Map<string, number>();
    for (const s of sent) void s.status.then((code) => answered.set(s.id, code));
    await until(
      () => sent.every((s) => answered.has(s.id) || atStore.some((d) => d.id === s.id)),
      "both stored or answered",
    );
    expect(atStore.length).toBe(1);
    expect([...answered.values()]).toEqual([503]);
    open();
    await Promise.all(sent.map((s) => s.status));
  }, 90_000);
});
