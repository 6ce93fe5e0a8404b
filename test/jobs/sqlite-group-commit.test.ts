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
    const results = await Promise.all(Array.from({ length: 100 }, (_, i) => together.store.receive(`d-${i}`, "issues", `{"n":${i}}`)));
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
    const [a, b, c] = await Promise.all([store.receive("same", "issues", "{}"), store.receive("same", "issues", "{}"), store.receive("old", "issues", "{}")]);
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
    const results = await Promise.allSettled([store.receive("x-1", "issues", "{}"), store.receive("x-2", "issues", "{}")]);
    blocker.exec("ROLLBACK");
    blocker.close();
    expect(results.map((r) => r.status)).toEqual(["rejected", "rejected"]);
    expect((await store.inboxDepth()).pending).toBe(0);
    await store.close();
  }, 30_000);
});
