// Databases written by the previous release (before schema versions, DDL copied here
// verbatim) are upgraded in place without losing rows; a newer database is refused.
import { mkdtemp } from "node:fs/promises";
import { DatabaseSync } from "node:sqlite";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { MemoryPool } from "../../src/engine/memory/memory-pool.ts";
import { JOB_STORE_MIGRATIONS, JobStore } from "../../src/jobs/job-store.ts";
import { schemaVersion, SchemaTooNewError } from "../../src/jobs/migrate-sqlite.ts";

const dbPath = async (name: string) => join(await mkdtemp(join(tmpdir(), "autogen-migrate-")), name);

/** The job store as release 393ded0 wrote it: no version, no inbox. */
function writeUnversionedJobDb(path: string): void {
  const db = new DatabaseSync(path);
  db.exec(`
      PRAGMA journal_mode = WAL;
      PRAGMA busy_timeout = 5000;
      CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, event TEXT NOT NULL, received_at INTEGER NOT NULL);
      CREATE TABLE IF NOT EXISTS jobs (
        id INTEGER PRIMARY KEY AUTOINCREMENT,
        delivery_id TEXT NOT NULL, installation_id INTEGER NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL,
        number INTEGER NOT NULL, kind TEXT NOT NULL, requester TEXT NOT NULL, requester_id INTEGER NOT NULL,
        snapshot TEXT NOT NULL, hint TEXT, state TEXT NOT NULL, checkpoint TEXT NOT NULL DEFAULT '{}',
        status_comment_id INTEGER, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
      CREATE UNIQUE INDEX IF NOT EXISTS one_active_job ON jobs(owner, repo, number) WHERE state IN ('queued', 'running');
    `);
  db.prepare("INSERT INTO deliveries (id, event, received_at) VALUES ('old-1', 'issues', 1)").run();
  const insert = db.prepare(
    "INSERT INTO jobs (delivery_id, installation_id, owner, repo, number, kind, requester, requester_id, snapshot, hint, state, checkpoint, created_at, updated_at) VALUES (?, 99, 'octo-org', 'shop', ?, 'fix', 'maintainer', 7, ?, NULL, ?, ?, 1, 1)",
  );
  insert.run(
    "old-1",
    42,
    JSON.stringify({ title: "Discount", body: "wrong" }),
    "running",
    JSON.stringify({ branch: "autogen/issue-42" }),
  );
  insert.run("old-2", 43, JSON.stringify({ title: "Tax", body: "off" }), "done", "{}");
  db.close();
}

describe("job store schema", () => {
  it("upgrades a database written before schema versions, keeping its jobs and deliveries", async () => {
    const path = await dbPath("jobs.db");
    writeUnversionedJobDb(path);
    const store = new JobStore(path);
    try {
      expect(await store.latest("octo-org", "shop", 42)).toMatchObject({
        deliveryId: "old-1",
        state: "running",
        checkpoint: { branch: "autogen/issue-42" },
        snapshot: { title: "Discount" },
      });
      expect((await store.latest("octo-org", "shop", 43))?.state).toBe("done");
      expect(await store.recordDelivery("old-1", "issues")).toBe(false);
      // The interrupted job resumes, and the new inbox works on the old file.
      expect(await store.requeueInterrupted()).toBe(1);
      expect(await store.receive("new-1", "issues", "{}")).toBe(true);
      expect((await store.inbox("new-1"))?.state).toBe("pending");
    } finally {
      store.close();
    }
    const db = new DatabaseSync(path);
    expect(schemaVersion(db)).toBe(JOB_STORE_MIGRATIONS.length);
    expect(Number((db.prepare("SELECT COUNT(*) AS n FROM jobs").get() as { n: number }).n)).toBe(2);
    db.close();
  });

  it("opens a current database again without change", async () => {
    const path = await dbPath("jobs.db");
    new JobStore(path).close();
    const store = new JobStore(path);
    expect(await store.receive("d-1", "issues", "{}")).toBe(true);
    store.close();
    const again = new JobStore(path);
    expect(await again.receive("d-1", "issues", "{}")).toBe(false);
    again.close();
  });

  it("refuses a database from a newer release with a sentence saying what to do", async () => {
    const path = await dbPath("jobs.db");
    const db = new DatabaseSync(path);
    db.exec(`PRAGMA user_version = ${JOB_STORE_MIGRATIONS.length + 1}`);
    db.close();
    expect(() => new JobStore(path)).toThrow(SchemaTooNewError);
    expect(() => new JobStore(path)).toThrow(/upgrade autogen-bot or use another AUTOGEN_DB_PATH/);
  });
});

describe("memory store schema", () => {
  it("upgrades a memory database written before schema versions and still recalls its entries", async () => {
    const path = await dbPath("memory.db");
    const db = new DatabaseSync(path);
    db.exec(`
      CREATE TABLE IF NOT EXISTS memory (id INTEGER PRIMARY KEY AUTOINCREMENT, installation TEXT NOT NULL, repository TEXT NOT NULL,
        task TEXT NOT NULL, plan TEXT NOT NULL, verification TEXT NOT NULL, keywords TEXT NOT NULL, embedding TEXT, created_at INTEGER NOT NULL);
      CREATE VIRTUAL TABLE IF NOT EXISTS memory_fts USING fts5(text, content='');
    `);
    db.close();
    // Written through the old schema by the same statements the pool uses.
    const writer = new DatabaseSync(path);
    writer
      .prepare(
        "INSERT INTO memory (installation, repository, task, plan, verification, keywords, embedding, created_at) VALUES ('99', 'octo-org/shop', 'discount applied twice', '[\"apply once\"]', 'test_discount', 'discount cart', NULL, 1)",
      )
      .run();
    writer
      .prepare("INSERT INTO memory_fts (rowid, text) VALUES (1, 'discount cart discount applied twice apply once')")
      .run();
    writer.close();

    const pool = new MemoryPool(path);
    const recalled = pool.recall({ installation: "99", repository: "octo-org/shop" }, "the discount is applied twice");
    expect(recalled.map((r) => r.task)).toEqual(["discount applied twice"]);
    pool.close();
    const check = new DatabaseSync(path);
    expect(schemaVersion(check)).toBe(1);
    check.close();
  });
});
