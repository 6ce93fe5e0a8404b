// The attempts of a run, numbered in candidate order. Candidates validated in parallel
// slots finish in any order; each is released (reported, weighed as the closest attempt)
// only once every lower-numbered one has been, so what a user sees and what the outcome
// keeps do not depend on which slot happened to finish first.
import type { Attempt } from "../task.ts";

type Held = { attempt: Attempt; diff: (() => CandidateDiff) | undefined };

export type CandidateDiff = { diff: string; files: string[] };

export class AttemptLog {
  private readonly attempts: Attempt[];
  private readonly release: (attempt: Attempt, diff: (() => CandidateDiff) | undefined) => void;
  private readonly held = new Map<number, Held>();
  private allocated = 0;
  private released = 0;

  /** `attempts`: the outcome's list, filled in place. */
  constructor(attempts: Attempt[], release: (attempt: Attempt, diff: (() => CandidateDiff) | undefined) => void) {
    this.attempts = attempts;
    this.release = release;
  }

  /** The next number for a candidate tried one at a time. */
  next(): number {
    this.allocated = Math.max(this.allocated, this.released, ...this.held.keys()) + 1;
    return this.allocated;
  }

  /** `diff`: the candidate's change, asked for only if it becomes the closest attempt. */
  record(attempt: Attempt, diff?: () => CandidateDiff): void {
    if (attempt.index <= this.released || this.held.has(attempt.index))
      throw new Error(`attempt ${attempt.index} recorded twice`);
    this.attempts.push(attempt);
    this.held.set(attempt.index, { attempt, diff });
    for (let next = this.held.get(this.released + 1); next; next = this.held.get(this.released + 1))
      this.releaseOne(next);
  }

  /** At the end of a run: anything still held (a batch cut short) is released in order, and the list sorted. */
  close(): void {
    for (const index of [...this.held.keys()].sort((a, b) => a - b)) this.releaseOne(this.held.get(index) as Held);
    this.attempts.sort((a, b) => a.index - b.index);
  }

  private releaseOne({ attempt, diff }: Held): void {
    this.held.delete(attempt.index);
    this.released = Math.max(this.released, attempt.index);
    this.release(attempt, diff);
  }
}
