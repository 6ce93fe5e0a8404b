// The job store's port: webhook deliveries (the inbox), red-build keys and jobs with their
// checkpoints. Async so a network database can back it: SQLite (JobStore, one process,
// the default) or Postgres (PgStore, several instances sharing one database, where jobs
// and inbox rows are claimed under leases).
import type { JobCheckpoint } from "./job-checkpoint.ts";

/** `ci`: repair a red build on a pull request (`number` is the PR). */
export type JobKind = "fix" | "plan" | "ci";
export type JobState = "queued" | "running" | "done" | "failed" | "cancelled";

export type JobRequest = {
  deliveryId: string;
  installationId: number;
  owner: string;
  repo: string;
  number: number;
  kind: JobKind;
  requester: string;
  requesterId: number;
  snapshot: { title: string; body: string };
  hint?: string | undefined;
  /** Where work starts (for review feedback: the PR's branch, which it also pushes to). */
  checkpoint?: JobCheckpoint | undefined;
};

export type Job = JobRequest & {
  id: number;
  state: JobState;
  /** Parsed on read (job-checkpoint.ts): a stored field that breaks the schema is dropped with a warning. */
  checkpoint: JobCheckpoint;
  statusCommentId: number | null;
  error: string | null;
};

export type InboxState = "pending" | "done" | "failed";
export type InboxRow = {
  deliveryId: string;
  event: string;
  payload: string;
  state: InboxState;
  attempts: number;
  nextAttemptAt: number;
  error: string | null;
};

/**
 * How many bytes of payload text a look at the inbox may take: the oldest due rows whose
 * payloads together fit in `maxBytes`; with `atLeastOne` the oldest is taken even when it
 * alone is larger (nothing else is in hand, so it is handled alone).
 */
export type PayloadFit = { maxBytes: number; atLeastOne: boolean };

export type Enqueued = { queued: true; job: Job } | { queued: false; active: Job };

export interface Store {
  /** Which backend this is (for the health endpoint). */
  readonly kind: "sqlite" | "postgres";
  /**
   * True the first time a delivery id is seen; false for a redelivery. A delivery still
   * pending in the inbox is being handled (perhaps again, after a failed attempt), so it
   * counts as new until it is done.
   */
  recordDelivery(id: string, event: string): Promise<boolean>;
  /**
   * Claims a key (one red build's PR and head commit) for the delivery handling it: true
   * the first time, and again for the same delivery while its inbox row is still pending,
   * false once another delivery has it.
   */
  claimForDelivery(key: string, deliveryId: string): Promise<boolean>;
  /** Stores a webhook delivery for handling; false when that delivery id is already in. */
  receive(deliveryId: string, event: string, payload: string): Promise<boolean>;
  /**
   * Pending deliveries due by `now`, oldest first, leaving out those being handled here.
   * A store shared by several instances also claims them for this one under a lease, so
   * no other instance handles them until they are done or the lease runs out.
   */
  dueDeliveries(now: number, limit: number, exclude: ReadonlySet<string>, fit?: PayloadFit): Promise<InboxRow[]>;
  /** The earliest time after `now` a pending delivery is due, if any. */
  nextDueAfter(now: number): Promise<number | undefined>;
  inbox(deliveryId: string): Promise<InboxRow | undefined>;
  deliveryDone(deliveryId: string): Promise<void>;
  /** A failed attempt: retried at `retryAt`, or failed for good when it is undefined. */
  deliveryAttemptFailed(deliveryId: string, error: string, retryAt: number | undefined): Promise<void>;
  inboxDepth(): Promise<{ pending: number; failed: number }>;
  /** Queues a job, or returns the active job already there for that issue (or made by that delivery). */
  enqueue(request: JobRequest): Promise<Enqueued>;
  get(id: number): Promise<Job | undefined>;
  /** The most recent job for an issue, whatever its state. */
  latest(owner: string, repo: string, number: number): Promise<Job | undefined>;
  /** How many jobs of a kind an issue or PR has had. */
  countJobs(owner: string, repo: string, number: number, kind: JobKind): Promise<number>;
  active(owner: string, repo: string, number: number): Promise<Job | undefined>;
  /** Takes the oldest queued job whose installation is under its concurrency limit (a shared store: under a lease). */
  claimNext(perInstallationLimit: number): Promise<Job | undefined>;
  /**
   * How often a running job's lease must be renewed (a store shared by several instances);
   * undefined when jobs are not leased (SQLite: one process).
   */
  readonly leaseRenewMs: number | undefined;
  /** Renews this instance's leases on running jobs; returns the ids it no longer holds (their runs must stop). */
  renewLeases(ids: readonly number[]): Promise<number[]>;
  checkpoint(id: number, patch: JobCheckpoint): Promise<JobCheckpoint>;
  setStatusComment(id: number, commentId: number): Promise<void>;
  finish(id: number, state: "done" | "failed" | "cancelled", error?: string): Promise<void>;
  /** At start: jobs left running by a dead process go back to the queue, keeping their checkpoints. */
  requeueInterrupted(): Promise<number>;
  queueDepth(): Promise<{ queued: number; running: number }>;
  close(): Promise<void>;
}
