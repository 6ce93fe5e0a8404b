// The SQLite inbox commits deliveries that arrive together in one transaction (one sync
// to disk for the batch), answers each one only after that commit, and still tells a
// first delivery from a redelivery inside a batch. The WAL's frame count shows the
// transactions: each commit appends the pages it changed.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { describe, expect, it } from "vitest";
import { JobStore } from "../../src/jobs/job-store.ts";

async function freshStore(): Promise<{ store: JobStore; path: string }> {
  const path = join(await mkdtemp(join(tmpdir(), "autogen-group-commit-")), "autogen.db");
  const store = new JobStore(path);
  return { store, path };
}

/** Frames in the WAL now (a passive checkpoint reports them without waiting). */
function walFrames(path: string): number {
  const db = new DatabaseSync(path);
  try {
    db.exec("PRAGMA journal_mode = WAL");
    const row = db.prepare("PRAGMA wal_checkpoint(PASSIVE)").get() as { log: number };
    return Number(row.log);
  } finally {
    db.close();
  }
}

describe("SQLite inbox group commit", () => {
  it("commits deliveries received together in one transaction, and one at a time when they come one at a time", async () => {
    const together = await freshStore();
    const base = walFrames(together.path);
    const results = await Promise.all(
      Array.from({ length: 100 }, (_, i) => together.store.receive(`d-${i}`, "issues", `{"n":${i}}`)),
    );
    expect(results.every(Boolean)).toBe(true);
    const batchFrames = walFrames(together.path) - base;
    expect((await together.store.inboxDepth()).pending).toBe(100);
    await together.store.close();

    const apart = await freshStore();
    const apartBase = walFrames(apart.path);
    for (let i = 0; i < 100; i++) expect(await apart.store.receive(`d-${i}`, "issues", `{"n":${i}}`)).toBe(true);
    const apartFrames = walFrames(apart.path) - apartBase;
    await apart.store.close();

    // A hundred commits append at least a frame each; one commit, a handful of pages.
    expect(apartFrames).toBeGreaterThanOrEqual(100);
    expect(batchFrames).toBeLessThan(20);
  });

  it("tells the first of two copies of a delivery in one batch from the second, and an old one from a new one", async () => {
    const { store } = await freshStore();
    expect(await store.receive("old", "issues", "{}")).toBe(true);
    const [a, b, c] = await Promise.all([
      store.receive("same", "issues", "{}"),
      store.receive("same", "issues", "{}"),
      store.receive("old", "issues", "{}"),
    ]);
    expect([a, b, c]).toEqual([true, false, false]);
    await store.close();
  });

  it("answers a delivery read just before close: committed, not lost", async () => {
    const { store, path } = await freshStore();
    const pending = store.receive("late", "issues", "{}");
    await store.close();
    expect(await pending).toBe(true);
    const reopened = new JobStore(path);
    expect((await reopened.inboxDepth()).pending).toBe(1);
    await reopened.close();
  });

  it("rejects every delivery of a batch that could not be committed, storing none", async () => {
    const { store, path } = await freshStore();
    // Another connection holds the write lock past the busy timeout's reach: the batch fails.
    const blocker = new DatabaseSync(path);
    blocker.exec("PRAGMA busy_timeout = 0; BEGIN IMMEDIATE");
    const results = await Promise.allSettled([
      store.receive("x-1", "issues", "{}"),
      store.receive("x-2", "issues", "{}"),
    ]);
    blocker.exec("ROLLBACK");
    blocker.close();
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((await store.inboxDepth()).pending).toBe(0);
    await store.close();
  }, 30_000);

  it("refuses only the delivery whose insert fails mid-batch; the others of its batch are committed and answered", async () => {
    const { store, path } = await freshStore();
    // A row SQLite itself refuses (statement aborted by a trigger, installed from another connection).
    const other = new DatabaseSync(path);
    other.exec(
      "CREATE TRIGGER refuse_poison BEFORE INSERT ON inbox WHEN NEW.delivery_id = 'poison' BEGIN SELECT RAISE(ABORT, 'poison refused'); END;",
    );
    other.close();
    const results = await Promise.allSettled([
      store.receive("a", "issues", "{}"),
      store.receive("poison", "issues", "{}"),
      store.receive("b", "issues", "{}"),
      store.receive("a", "issues", "{}"),
    ]);
    expect(results.map((r) => (r.status === "fulfilled" ? r.value : "rejected"))).toEqual([
      true,
      "rejected",
      true,
      false,
    ]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/poison refused/);
    expect(await store.inbox("a")).toMatchObject({ state: "pending", payload: "{}" });
    expect(await store.inbox("b")).toMatchObject({ state: "pending" });
    expect(await store.inbox("poison")).toBeUndefined();
    await store.close();
  });

  it("refuses only a payload beyond SQLite's length limit; the rest of the batch is committed", async () => {
    const { store } = await freshStore();
    // The default limit is 1e9 bytes, more than a test should allocate: this connection's is lowered to 64 KiB instead.
    (store as unknown as { db: DatabaseSync }).db.limits.length = 64 * 1024;
    const huge = JSON.stringify({ pad: "x".repeat(128 * 1024) });
    const results = await Promise.allSettled([
      store.receive("small-1", "issues", "{}"),
      store.receive("huge", "issues", huge),
      store.receive("small-2", "issues", "{}"),
    ]);
    expect(results.map((r) => r.status)).toEqual(["fulfilled", "rejected", "fulfilled"]);
    expect(String((results[1] as PromiseRejectedResult).reason)).toMatch(/too big/i);
    expect((await store.inboxDepth()).pending).toBe(2);
    expect(await store.inbox("huge")).toBeUndefined();
    await store.close();
  });

  it("rejects a delivery received after close (answered 500 by the ingress), without throwing elsewhere", async () => {
    const { store, path } = await freshStore();
    await store.close();
    await expect(store.receive("after-close", "issues", "{}")).rejects.toThrow();
    const reopened = new JobStore(path);
    expect(await reopened.inbox("after-close")).toBeUndefined();
    await reopened.close();
  });
});
