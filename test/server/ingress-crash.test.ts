// A 202 means stored: the server is killed (SIGKILL, no shutdown) while a burst of
// deliveries is being received and group-committed, and every delivery that was answered
// 202 before the kill is in the SQLite file afterwards.
import { mkdtemp } from "node:fs/promises";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { spawnServer } from "../support/server-child.ts";
import { signPayload } from "../support/webhook-examples.ts";

const secret = "ingress-crash-secret";

/** One delivery; resolves with the status, or undefined when the connection died first. */
function post(port: number, id: string, body: string): Promise<number | undefined> {
  return new Promise((resolve) => {
    const req = request({
      host: "127.0.0.1",
      port,
      method: "POST",
      path: "/api/github/webhooks",
      agent: false,
      headers: {
        "content-type": "application/json",
        "x-github-event": "star",
        "x-github-delivery": id,
        "x-hub-signature-256": signPayload(secret, body),
        "content-length": Buffer.byteLength(body),
      },
    });
    req.on("response", (res) => {
      res.resume();
      resolve(res.statusCode);
    });
    req.on("error", () => resolve(undefined));
    req.end(body);
  });
}

describe("a server killed mid-burst", () => {
  it("has stored every delivery it answered 202", async () => {
    const dbPath = join(await mkdtemp(join(tmpdir(), "autogen-crash-")), "autogen.db");
    const server = await spawnServer(join(import.meta.dirname, "../support/ingress-child.ts"), [dbPath, secret]);
    try {
      const port = Number(server.url.port);
      const accepted: string[] = [];
      const statuses: Array<number | undefined> = [];
      let killed = false;
      let dead = false;
      let next = 0;
      const body = JSON.stringify({ action: "created", pad: "x".repeat(16 * 1024) });
      // 100 senders (under the connection cap of 256) keep deliveries in flight until the server
      // is gone: the kill comes once 50 have been answered 202, while others are being received
      // and committed, however fast or slow this machine answers them.
      const sender = async () => {
        while (!dead && next < 5_000) {
          const id = `crash-${next++}`;
          const status = await post(port, id, body);
          statuses.push(status);
          if (status === 202) accepted.push(id);
          if (accepted.length >= 50 && !killed) {
            killed = true;
            void server.kill().then(() => {
              dead = true;
            });
          }
          if (status === undefined) return;
        }
      };
      await Promise.all(Array.from({ length: 100 }, sender));
      await server.kill();
      expect(killed).toBe(true);
      // Some never got an answer: the kill really came mid-burst.
      expect(statuses.some((s) => s === undefined)).toBe(true);
      const db = new DatabaseSync(dbPath);
      try {
        const stored = new Set(
          (db.prepare("SELECT delivery_id FROM inbox").all() as Array<{ delivery_id: string }>).map(
            (r) => r.delivery_id,
          ),
        );
        expect(accepted.filter((id) => !stored.has(id))).toEqual([]);
        expect(accepted.length).toBeGreaterThanOrEqual(50);
      } finally {
        db.close();
      }
    } finally {
      await server.kill();
    }
  }, 120_000);
});
