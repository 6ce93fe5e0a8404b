// Keeps the job's one status comment up to date: found again by its marker (so a retry
// or a restarted job edits the same comment), updated at most every few seconds while
// the job runs, and always at the end (when the final state is also kept in the job's
// checkpoint, for its check run).
import type { Forge } from "../forge/forge.ts";
import type { Job, Store } from "../jobs/store.ts";
import { renderStatus, statusMarker, type StatusStep } from "../report/status-comment.ts";

export const STEPS = [
  "Configuration",
  "Tests and localisation",
  "Plan",
  "Attempts",
  "Regression gate",
  "Pull request",
] as const;
/** A red build on a pull request: the evidence and its attribution come before the plan. */
export const CI_STEPS = [
  "Configuration",
  "CI evidence",
  "Attribution",
  "Plan",
  "Attempts",
  "Regression gate",
  "Pull request",
] as const;
export type StepName = (typeof STEPS)[number] | (typeof CI_STEPS)[number];

export class StatusReporter {
  private readonly steps: StatusStep[];
  private commentId: number | null;
  private lastWrite = 0;
  private pending: NodeJS.Timeout | undefined;
  /** What a long phase is doing (the pipeline's heartbeat), shown under the steps until a step changes. */
  private working: string | undefined;
  /** Updates go out one after another, so an earlier one (a throttled step, a heartbeat) never lands after the final word. */
  private writing: Promise<unknown> = Promise.resolve();
  private readonly marker: string;
  private readonly forge: Forge;
  private readonly store: Store;
  private readonly job: Job;
  private readonly throttleMs: number;

  constructor(forge: Forge, store: Store, job: Job, throttleMs = 3000, steps: readonly StepName[] = STEPS) {
    this.steps = steps.map((name) => ({ name, state: "pending" }));
    this.forge = forge;
    this.store = store;
    this.job = job;
    this.throttleMs = throttleMs;
    this.commentId = job.statusCommentId;
    this.marker = statusMarker(job.owner, job.repo, job.number);
  }

  async start(): Promise<void> {
    if (this.commentId === null) {
      const existing = (await this.forge.listComments(this.job.owner, this.job.repo, this.job.number)).find((c) =>
        c.body.startsWith(this.marker),
      );
      this.commentId =
        existing?.id ??
        (await this.forge.createComment(
          this.job.owner,
          this.job.repo,
          this.job.number,
          renderStatus(this.marker, this.steps),
        ));
      await this.store.setStatusComment(this.job.id, this.commentId);
    }
    await this.write();
  }

  set(name: StepName, state: StatusStep["state"], detail?: string): void {
    const step = this.steps.find((s) => s.name === name);
    if (step) Object.assign(step, { state, detail });
    this.working = undefined;
    this.schedule();
  }

  /** A line under the steps while a long phase runs, written as a step update is (throttled). */
  workingOn(line: string): void {
    this.working = line;
    this.schedule();
  }

  private schedule(): void {
    if (Date.now() - this.lastWrite >= this.throttleMs) void this.write().catch(() => undefined);
    else if (!this.pending)
      this.pending = setTimeout(() => void this.write().catch(() => undefined), this.throttleMs).unref();
  }

  /** A line under the steps while the job goes on (a retry later), leaving the steps as they are. */
  async note(summary: string): Promise<void> {
    await this.write(summary);
  }

  async finish(summary: string): Promise<void> {
    this.working = undefined;
    clearTimeout(this.pending);
    this.pending = undefined;
    for (const step of this.steps) if (step.state === "running") step.state = "failed";
    for (const step of this.steps) if (step.state === "pending") step.state = "skipped";
    // Kept with the job: its check run's summary is this checklist and final word.
    await this.store.checkpoint(this.job.id, { statusReport: { steps: this.steps, summary } }).catch(() => undefined);
    await this.write(summary);
  }

  private async write(summary?: string): Promise<void> {
    clearTimeout(this.pending);
    this.pending = undefined;
    this.lastWrite = Date.now();
    if (this.commentId === null) return;
    const [id, body] = [this.commentId, renderStatus(this.marker, this.steps, summary ?? this.working)];
    const update = this.writing.then(() => this.forge.updateComment(this.job.owner, this.job.repo, id, body));
    this.writing = update.catch(() => undefined);
    await update;
  }
}
