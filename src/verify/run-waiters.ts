// Wakes a verifier waiting on an Actions run when the `workflow_run.completed` webhook
// for it arrives, so it need not wait for its next poll. Polling stays the fallback
// (webhooks can be late or lost). A completion that arrives between a poll and the
// sleep after it is remembered, so it is not missed.
const REMEMBERED = 1000;

export class RunWaiters {
  private readonly sleepers = new Map<number, Set<() => void>>();
  private readonly completed = new Set<number>();

  /** Resolves after `ms`, or sooner when `runId` is (or was) reported complete or `signal` aborts. */
  sleep(runId: number | undefined, ms: number, signal?: AbortSignal): Promise<void> {
    if (runId !== undefined && this.completed.has(runId)) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener("abort", done);
        if (runId !== undefined) this.sleepers.get(runId)?.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener("abort", done, { once: true });
      if (runId !== undefined) {
        const set = this.sleepers.get(runId) ?? new Set();
        set.add(done);
        this.sleepers.set(runId, set);
      }
    });
  }

  notify(runId: number): void {
    this.completed.add(runId);
    if (this.completed.size > REMEMBERED) this.completed.delete(this.completed.values().next().value as number);
    const set = this.sleepers.get(runId);
    this.sleepers.delete(runId);
    for (const wake of set ?? []) wake();
  }
}
