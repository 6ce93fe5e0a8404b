// What the dashboard and /metrics read about jobs: a read-only, async port, so the pages do
// not depend on which store the server writes to (SQLite today, see sqlite-job-history.ts).
import type { Attempt, Outcome, TestEvidence } from "../engine/task.ts";
import type { Job } from "../jobs/store.ts";

/** The engine's cost figures a job's list row shows (the outcome's, less the candidate and cache counts). */
export type JobCost = Pick<
  Outcome["cost"],
  | "llmCalls"
  | "promptTokens"
  | "completionTokens"
  | "dollars"
  | "llmSeconds"
  | "testRuns"
  | "testSeconds"
  | "wallSeconds"
>;

/** One job as an operator sees it in a list: no issue body, no diff, no prompt. */
export type JobSummary = Pick<
  Job,
  "id" | "deliveryId" | "installationId" | "owner" | "repo" | "number" | "kind" | "state" | "requester" | "error"
> & {
  title: string;
  /** Epoch milliseconds. */
  createdAt: number;
  updatedAt: number;
  /** The engine's last stage (checkpointed as it goes), e.g. `plan`, `attempt`. */
  stage: string | undefined;
  /** `fixed` / `not-fixed` once the engine ended. */
  outcome: "fixed" | "not-fixed" | undefined;
  stopReason: string | undefined;
  strategy: string | undefined;
  /** Where the tests ran: the sandbox isolation of the last evidence (bwrap, unshare, none) or `actions`. */
  verifier: string | undefined;
  pull: number | undefined;
  /** The pull request was merged (a `pull_request.closed` delivery with `merged: true` is in the inbox). */
  merged: boolean;
  cost: JobCost | undefined;
  attempts: number;
};

export type JobDetail = JobSummary & {
  message: string | undefined;
  hint: string | undefined;
  /** The check run the job reported on (checkpoint `checkRun.html_url` / `.url`, or `checkRunUrl`), http(s) only. */
  checkRunUrl: string | undefined;
  attemptList: Attempt[];
  evidence: {
    before?: TestEvidence | undefined;
    after?: TestEvidence | undefined;
    regressionAfter?: TestEvidence | undefined;
  };
  changedFiles: string[];
  planSteps: string[];
};

export type InboxCounts = { pending: number; done: number; failed: number; oldestPendingAt: number | undefined };

/** The inbox's counts from `SELECT state, COUNT(*) AS n, MIN(received_at) AS oldest … GROUP BY state` (either store). */
export function inboxCounts(
  rows: ReadonlyArray<{ state: string; n: number | string; oldest: number | string | null }>,
): InboxCounts {
  const count = (state: string) => Number(rows.find((r) => r.state === state)?.n ?? 0);
  const oldest = rows.find((r) => r.state === "pending")?.oldest;
  return {
    pending: count("pending"),
    done: count("done"),
    failed: count("failed"),
    oldestPendingAt: oldest === undefined || oldest === null ? undefined : Number(oldest),
  };
}

export interface JobHistory {
  /** Jobs created at or after `since` (epoch ms), newest first, at most `limit`. */
  jobs(options?: { since?: number; limit?: number }): Promise<JobSummary[]>;
  job(id: number): Promise<JobDetail | undefined>;
  inbox(): Promise<InboxCounts>;
  close(): Promise<void>;
}
