// Jobs and deliveries in SQLite (node:sqlite): a webhook delivery is stored in the inbox
// under its id (in one transaction with those read beside it, so a crash leaves the row
// or nothing, and a redelivery is a no-op) and handled from there with retries; at most one active job per issue or PR
// (a partial unique index), and one job per delivery and issue however often the delivery
// is retried; checkpoints so a job resumes after a crash or restart.
import { mkdirSync } from "node:fs";
import { dirname } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { stderrWarn, type CheckpointWarn, type JobCheckpoint } from "./job-checkpoint.ts";
import { inboxRowFrom, jobFrom, newJobValues, type JobRow } from "./store-rows.ts";
import { migrateSqlite } from "./migrate-sqlite.ts";

import type { Enqueued, InboxRow, Job, JobKind, JobRequest, PayloadFit, Store } from "./store.ts";

export type { Enqueued, InboxRow, Job, JobKind, JobRequest, JobState, Store } from "./store.ts";

/** The job store's schema, one entry per version; never edit one that has shipped, add the next. */
export const JOB_STORE_MIGRATIONS = [
  // 1: jobs and deliveries (the schema from before versioning, verbatim).
  `CREATE TABLE IF NOT EXISTS deliveries (id TEXT PRIMARY KEY, event TEXT NOT NULL, received_at INTEGER NOT NULL);
   CREATE TABLE IF NOT EXISTS jobs (
     id INTEGER PRIMARY KEY AUTOINCREMENT,
     delivery_id TEXT NOT NULL, installation_id INTEGER NOT NULL, owner TEXT NOT NULL, repo TEXT NOT NULL,
     number INTEGER NOT NULL, kind TEXT NOT NULL, requester TEXT NOT NULL, requester_id INTEGER NOT NULL,
     snapshot TEXT NOT NULL, hint TEXT, state TEXT NOT NULL, checkpoint TEXT NOT NULL DEFAULT '{}',
     status_comment_id INTEGER, error TEXT, created_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
   CREATE UNIQUE INDEX IF NOT EXISTS one_active_job ON jobs(owner, repo, number) WHERE state IN ('queued', 'running');`,
  // 2: the webhook inbox, and jobs found by delivery (a retried delivery finds its job).
  `CREATE TABLE inbox (
     delivery_id TEXT PRIMARY KEY, event TEXT NOT NULL, payload TEXT NOT NULL, state TEXT NOT NULL DEFAULT 'pending',
     attempts INTEGER NOT NULL DEFAULT 0, next_attempt_at INTEGER NOT NULL, error TEXT, received_at INTEGER NOT NULL, updated_at INTEGER NOT NULL);
   CREATE INDEX inbox_due ON inbox(state, next_attempt_at);
   CREATE INDEX jobs_by_delivery ON jobs(delivery_id);`,
  // 3: due deliveries read in their order from the index (no sort of every pending row per look).
  `CREATE INDEX inbox_due_in_order ON inbox(state, next_attempt_at, received_at);
   DROP INDEX inbox_due;`,
] as const;

type PendingReceive = {
  deliveryId: string;
  event: string;
  payload: string;
  resolve: (fresh: boolean) => void;
  reject: (error: unknown) => void;
};

/** The SQLite store: one process; its SQL runs synchronously inside each (async) call. */
export class JobStore implements Store {
  readonly kind = "sqlite" as const;
  /** Jobs are not leased: one process owns the file. */
  readonly leaseRenewMs = undefined;
  private readonly db: DatabaseSync;
  /** Deliveries waiting for the next group commit. */
  private receiving: PendingReceive[] = [];

  /** Where a stored checkpoint that breaks its schema is reported. */
  private readonly warn: CheckpointWarn;

  constructor(path: string, options: { warn?: CheckpointWarn | undefined } = {}) {
    this.warn = options.warn ?? stderrWarn;
    if (path !== ":memory:") mkdirSync(dirname(path), { recursive: true });
    this.db = new DatabaseSync(path);
    this.db.exec("PRAGMA journal_mode = WAL; PRAGMA busy_timeout = 5000;");
    migrateSqlite(this.db, "job", JOB_STORE_MIGRATIONS);
  }

  /**
   * True the first time a delivery id is seen; false for a redelivery. A delivery still
   * pending in the inbox is being handled (perhaps again, after a failed attempt), so it
   * counts as new until it is done.
   */
  async recordDelivery(id: string, event: string): Promise<boolean> {
    if (
      this.db
        .prepare("INSERT OR IGNORE INTO deliveries (id, event, received_at) VALUES (?, ?, ?)")
        .run(id, event, Date.now()).changes === 1
    )
      return true;
    return this.db.prepare("SELECT 1 FROM inbox WHERE delivery_id = ? AND state = 'pending'").get(id) !== undefined;
  }

  /**
   * Claims a key (one red build's PR and head commit) for the delivery handling it: true
   * the first time, and again for the same delivery while its inbox row is still pending
   * (a retry after a GitHub error, or the next start after a crash between the claim and
   * the enqueue, which is idempotent per delivery), false once another delivery has it.
   */
  async claimForDelivery(key: string, deliveryId: string): Promise<boolean> {
    const owner = `by:${deliveryId}`;
    if (
      this.db
        .prepare("INSERT OR IGNORE INTO deliveries (id, event, received_at) VALUES (?, ?, ?)")
        .run(key, owner, Date.now()).changes === 1
    )
      return true;
    const row = this.db.prepare("SELECT event FROM deliveries WHERE id = ?").get(key) as { event: string } | undefined;
    return (
      row?.event === owner &&
      this.db.prepare("SELECT 1 FROM inbox WHERE delivery_id = ? AND state = 'pending'").get(deliveryId) !== undefined
    );
  }

  /**
   * Stores a webhook delivery for handling; false when that delivery id is already in.
   * Resolves once the row is committed (the answer to GitHub waits for it). Deliveries
   * that arrive together are committed together: one transaction, one sync to disk, for
   * all the bodies read in the same turn of the event loop (group commit), so a burst
   * costs a sync per batch rather than per delivery.
   */
  receive(deliveryId: string, event: string, payload: string): Promise<boolean> {
    return new Promise((resolve, reject) => {
      this.receiving.push({ deliveryId, event, payload, resolve, reject });
      if (this.receiving.length === 1) setImmediate(() => this.commitReceived());
    });
  }

  private commitReceived(): void {
    const batch = this.receiving;
    this.receiving = [];
    const now = Date.now();
    // Each row's own outcome: a delivery whose insert fails (a value SQLite will not bind or
    // store, a constraint) is refused alone; SQLite backs out only that statement, so the
    // others still commit and are answered 202.
    let outcomes: Array<{ fresh: boolean } | { error: unknown }>;
    try {
      const insert = this.db.prepare(
        "INSERT OR IGNORE INTO inbox (delivery_id, event, payload, state, attempts, next_attempt_at, received_at, updated_at) VALUES (?, ?, ?, 'pending', 0, ?, ?, ?)",
      );
      this.db.exec("BEGIN IMMEDIATE");
      try {
        outcomes = batch.map((r) => {
          try {
            return { fresh: insert.run(r.deliveryId, r.event, r.payload, now, now, now).changes === 1 };
          } catch (error) {
            // An error that ended the transaction itself (disk full, I/O) fails the whole batch.
            if (!this.db.isTransaction) throw error;
            return { error };
          }
        });
        this.db.exec("COMMIT");
      } catch (error) {
        if (this.db.isTransaction) this.db.exec("ROLLBACK");
        throw error;
      }
    } catch (error) {
      // Nothing of the batch is stored: every sender is answered 500 and GitHub may redeliver.
      for (const r of batch) r.reject(error);
      return;
    }
    batch.forEach((r, i) => {
      const outcome = outcomes[i] as { fresh: boolean } | { error: unknown };
      if ("error" in outcome) r.reject(outcome.error);
      else r.resolve(outcome.fresh);
    });
  }

  /**
   * Pending deliveries due by `now`, oldest first, leaving out those being handled; with
   * `fit`, only as many as fit in its byte budget. The payload sizes are summed in SQL, so
   * a payload that does not fit is never read into memory here.
   */
  async dueDeliveries(now: number, limit: number, exclude: ReadonlySet<string>, fit?: PayloadFit): Promise<InboxRow[]> {
    if (limit <= 0) return [];
    const rows = this.db
      .prepare(
        `WITH due AS (
           SELECT delivery_id, ROW_NUMBER() OVER w AS n, SUM(length(CAST(payload AS BLOB))) OVER w AS running FROM inbox
           WHERE state = 'pending' AND next_attempt_at <= ? AND delivery_id NOT IN (SELECT value FROM json_each(?))
           WINDOW w AS (ORDER BY next_attempt_at, received_at, delivery_id ROWS UNBOUNDED PRECEDING))
         SELECT inbox.* FROM due JOIN inbox USING (delivery_id)
         WHERE due.n <= ? AND (due.running <= ? OR (due.n = 1 AND ?))
         ORDER BY due.n`,
      )
      .all(
        now,
        JSON.stringify([...exclude]),
        limit,
        fit?.maxBytes ?? Number.MAX_SAFE_INTEGER,
        fit?.atLeastOne === false ? 0 : 1,
      ) as Array<Record<string, unknown>>;
    return rows.map(inboxRowFrom);
  }

  /** The earliest time after `now` a pending delivery is due, if any (those due already are taken as room frees). */
  async nextDueAfter(now: number): Promise<number | undefined> {
    const row = this.db
      .prepare("SELECT MIN(next_attempt_at) AS at FROM inbox WHERE state = 'pending' AND next_attempt_at > ?")
      .get(now) as { at: number | null };
    return row.at ?? undefined;
  }

  async inbox(deliveryId: string): Promise<InboxRow | undefined> {
    const row = this.db.prepare("SELECT * FROM inbox WHERE delivery_id = ?").get(deliveryId) as
      Record<string, unknown> | undefined;
    return row ? inboxRowFrom(row) : undefined;
  }

  async deliveryDone(deliveryId: string): Promise<void> {
    this.db
      .prepare(
        "UPDATE inbox SET state = 'done', attempts = attempts + 1, error = NULL, updated_at = ? WHERE delivery_id = ?",
      )
      .run(Date.now(), deliveryId);
  }

  /** A failed attempt: retried at `retryAt`, or failed for good when it is undefined. */
  async deliveryAttemptFailed(deliveryId: string, error: string, retryAt: number | undefined): Promise<void> {
    const now = Date.now();
    if (retryAt === undefined)
      this.db
        .prepare(
          "UPDATE inbox SET state = 'failed', attempts = attempts + 1, error = ?, updated_at = ? WHERE delivery_id = ?",
        )
        .run(error, now, deliveryId);
    else
      this.db
        .prepare(
          "UPDATE inbox SET attempts = attempts + 1, error = ?, next_attempt_at = ?, updated_at = ? WHERE delivery_id = ?",
        )
        .run(error, retryAt, now, deliveryId);
  }

  async inboxDepth(): Promise<{ pending: number; failed: number }> {
    const rows = this.db
      .prepare("SELECT state, COUNT(*) AS n FROM inbox WHERE state IN ('pending', 'failed') GROUP BY state")
      .all() as Array<{ state: string; n: number }>;
    return {
      pending: rows.find((r) => r.state === "pending")?.n ?? 0,
      failed: rows.find((r) => r.state === "failed")?.n ?? 0,
    };
  }

  /** Queues a job, or returns the active job already running for that issue. */
  async enqueue(request: JobRequest): Promise<Enqueued> {
    // A delivery handled again after a failed attempt finds the job it already made.
    const made = this.db
      .prepare("SELECT * FROM jobs WHERE delivery_id = ? AND owner = ? AND repo = ? AND number = ? ORDER BY id LIMIT 1")
      .get(request.deliveryId, request.owner, request.repo, request.number) as JobRow | undefined;
    if (made) return { queued: false, active: jobFrom(made, this.warn) };
    const now = Date.now();
    try {
      const result = this.db
        .prepare(
          "INSERT INTO jobs (delivery_id, installation_id, owner, repo, number, kind, requester, requester_id, snapshot, hint, checkpoint, state, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, 'queued', ?, ?)",
        )
        .run(...newJobValues(request), now, now);
      return { queued: true, job: this.getSync(Number(result.lastInsertRowid)) as Job };
    } catch (error) {
      if (!/UNIQUE constraint failed/.test((error as Error).message)) throw error;
      return { queued: false, active: (await this.active(request.owner, request.repo, request.number)) as Job };
    }
  }

  async get(id: number): Promise<Job | undefined> {
    return this.getSync(id);
  }

  private getSync(id: number): Job | undefined {
    const row = this.db.prepare("SELECT * FROM jobs WHERE id = ?").get(id) as JobRow | undefined;
    return row ? jobFrom(row, this.warn) : undefined;
  }

  /** The most recent job for an issue, whatever its state. */
  async latest(owner: string, repo: string, number: number): Promise<Job | undefined> {
    const row = this.db
      .prepare("SELECT * FROM jobs WHERE owner = ? AND repo = ? AND number = ? ORDER BY id DESC LIMIT 1")
      .get(owner, repo, number) as JobRow | undefined;
    return row ? jobFrom(row, this.warn) : undefined;
  }

  /** How many repair jobs a pull request has had (bot branches get a limited number of rounds). */
  async countJobs(owner: string, repo: string, number: number, kind: JobKind): Promise<number> {
    return Number(
      (
        this.db
          .prepare("SELECT COUNT(*) AS n FROM jobs WHERE owner = ? AND repo = ? AND number = ? AND kind = ?")
          .get(owner, repo, number, kind) as { n: number }
      ).n,
    );
  }

  async active(owner: string, repo: string, number: number): Promise<Job | undefined> {
    const row = this.db
      .prepare("SELECT * FROM jobs WHERE owner = ? AND repo = ? AND number = ? AND state IN ('queued', 'running')")
      .get(owner, repo, number) as JobRow | undefined;
    return row ? jobFrom(row, this.warn) : undefined;
  }

  /** Takes the oldest queued job whose installation is under its concurrency limit. */
  async claimNext(perInstallationLimit: number): Promise<Job | undefined> {
    this.db.exec("BEGIN IMMEDIATE");
    try {
      const row = this.db
        .prepare(
          "SELECT * FROM jobs q WHERE q.state = 'queued' AND (SELECT COUNT(*) FROM jobs r WHERE r.state = 'running' AND r.installation_id = q.installation_id) < ? ORDER BY q.id LIMIT 1",
        )
        .get(perInstallationLimit) as JobRow | undefined;
      if (row)
        this.db.prepare("UPDATE jobs SET state = 'running', updated_at = ? WHERE id = ?").run(Date.now(), row.id);
      this.db.exec("COMMIT");
      return row ? { ...jobFrom(row, this.warn), state: "running" } : undefined;
    } catch (error) {
      this.db.exec("ROLLBACK");
      throw error;
    }
  }

  async renewLeases(_ids: readonly number[]): Promise<number[]> {
    return [];
  }

  async checkpoint(id: number, patch: JobCheckpoint): Promise<JobCheckpoint> {
    const current = this.getSync(id)?.checkpoint ?? {};
    const next = { ...current, ...patch };
    this.db
      .prepare("UPDATE jobs SET checkpoint = ?, updated_at = ? WHERE id = ?")
      .run(JSON.stringify(next), Date.now(), id);
    return next;
  }

  async setStatusComment(id: number, commentId: number): Promise<void> {
    this.db
      .prepare("UPDATE jobs SET status_comment_id = ?, updated_at = ? WHERE id = ?")
      .run(commentId, Date.now(), id);
  }

  async finish(id: number, state: "done" | "failed" | "cancelled", error?: string): Promise<void> {
    this.db
      .prepare("UPDATE jobs SET state = ?, error = ?, updated_at = ? WHERE id = ? AND state IN ('queued', 'running')")
      .run(state, error ?? null, Date.now(), id);
  }

  /** After a restart: jobs that were running go back to the queue, keeping their checkpoints. */
  async requeueInterrupted(): Promise<number> {
    return Number(
      this.db.prepare("UPDATE jobs SET state = 'queued', updated_at = ? WHERE state = 'running'").run(Date.now())
        .changes,
    );
  }

  async queueDepth(): Promise<{ queued: number; running: number }> {
    const rows = this.db
      .prepare("SELECT state, COUNT(*) AS n FROM jobs WHERE state IN ('queued', 'running') GROUP BY state")
      .all() as Array<{ state: string; n: number }>;
    return {
      queued: rows.find((r) => r.state === "queued")?.n ?? 0,
      running: rows.find((r) => r.state === "running")?.n ?? 0,
    };
  }

  async close(): Promise<void> {
    // Deliveries read but not yet committed are committed (and answered) first.
    if (this.receiving.length > 0) this.commitReceived();
    this.db.close();
  }
}
