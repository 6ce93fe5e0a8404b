// Runs queued jobs with bounded concurrency (overall and per installation); each job can
// be cancelled through its own abort signal (`/autogen stop`, an edited issue).
import { withLogContext } from "./log-context.ts";
import type { Job, Store } from "./store.ts";

export type JobRunner = (job: Job, signal: AbortSignal) => Promise<void>;

export class WorkerPool {
  private readonly store: Store;
  private readonly run: JobRunner;
  private readonly concurrency: number;
  private readonly perInstallation: number;
  private readonly running = new Map<number, { controller: AbortController; done: Promise<void> }>();
  private stopped = false;
  private onIdle: Array<() => void> = [];
  /** One claiming loop at a time; a kick during it makes it look again when done. */
  private claiming: Promise<void> | undefined;
  private again = false;
  private readonly ticker: NodeJS.Timeout | undefined;

  constructor(store: Store, run: JobRunner, options: { concurrency: number; perInstallation: number }) {
    this.store = store;
    this.run = run;
    this.concurrency = options.concurrency;
    this.perInstallation = options.perInstallation;
    // A shared store: renew the leases of the jobs running here (a job whose lease is gone
    // was taken over or stopped elsewhere, and is aborted here), and look for jobs other
    // instances queued or left behind.
    const every = store.leaseRenewMs;
    if (every !== undefined) {
      this.ticker = setInterval(() => void this.tick(), Math.min(every, 5_000));
      this.ticker.unref();
    }
  }

  private async tick(): Promise<void> {
    if (this.stopped) return;
    const lost = await this.store.renewLeases([...this.running.keys()]).catch(() => []);
    for (const id of lost) this.abort(id, "the job's lease was lost: it was stopped or taken over by another instance");
    this.kick();
  }

  /** Starts queued jobs while there is room. Cheap; call after every enqueue. */
  kick(): void {
    if (this.claiming) {
      this.again = true;
      return;
    }
    this.claiming = this.claim()
      .catch(() => undefined)
      .finally(() => {
        this.claiming = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        } else if (this.running.size === 0) for (const resolve of this.onIdle.splice(0)) resolve();
      });
  }

  private async claim(): Promise<void> {
    while (!this.stopped && this.running.size < this.concurrency) {
      const job = await this.store.claimNext(this.perInstallation);
      if (!job) break;
      // Claimed as the pool stopped: left running, so it is requeued at the next start (SQLite)
      // or taken over when its lease runs out (Postgres).
      if (this.stopped) break;
      const controller = new AbortController();
      // What the job logs, and what is logged on its behalf (its GitHub calls), names it and its delivery.
      const done = withLogContext({ jobId: job.id, deliveryId: job.deliveryId }, () => this.run(job, controller.signal))
        .catch(() => undefined)
        .finally(() => {
          this.running.delete(job.id);
          this.kick();
        });
      this.running.set(job.id, { controller, done });
    }
  }

  abort(jobId: number, reason: string): boolean {
    const entry = this.running.get(jobId);
    if (!entry) return false;
    entry.controller.abort(new Error(reason));
    return true;
  }

  /** Resolves when no job is running (for tests and graceful shutdown). */
  idle(): Promise<void> {
    if (!this.claiming && this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.onIdle.push(resolve));
  }

  /**
   * Starts no more jobs and aborts the running ones (they checkpoint as they stop); waits
   * for them at most `graceMs`. True when all ended in time; a job still running is
   * requeued at the next start and resumes from its checkpoint.
   */
  async stop(graceMs = Number.POSITIVE_INFINITY): Promise<boolean> {
    this.stopped = true;
    if (this.ticker) clearInterval(this.ticker);
    for (const entry of this.running.values()) entry.controller.abort(new Error("the server is shutting down"));
    return settlesWithin(Promise.all([...this.running.values()].map((e) => e.done)), graceMs);
  }
}

/** True when `work` settles within `ms`, false when the time runs out first. */
export async function settlesWithin(work: Promise<unknown>, ms: number): Promise<boolean> {
  if (!Number.isFinite(ms)) {
    await work;
    return true;
  }
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  try {
    return await Promise.race([work.then(() => true as const), late]);
  } finally {
    clearTimeout(timer);
  }
}
