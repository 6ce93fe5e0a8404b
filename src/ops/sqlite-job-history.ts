// The job history read from the job store's SQLite file over a read-only connection of its
// own: list columns come from json_extract on the checkpoint (the outcome the engine
// stored), so a list never parses diffs or transcripts.
import { DatabaseSync } from "node:sqlite";
import type { Attempt, TestEvidence } from "../engine/task.ts";
import type { JobRow } from "../jobs/store-rows.ts";
import { inboxCounts, type InboxCounts, type JobDetail, type JobHistory, type JobSummary } from "./job-history.ts";

const SUMMARY_COLUMNS = `id, delivery_id, installation_id, owner, repo, number, kind, state, requester, created_at, updated_at, error,
  json_extract(snapshot, '$.title') AS title,
  json_extract(checkpoint, '$.stage') AS stage,
  json_extract(checkpoint, '$.pull') AS pull,
  json_extract(checkpoint, '$.outcome.status') AS outcome,
  json_extract(checkpoint, '$.outcome.stopReason') AS stop_reason,
  json_extract(checkpoint, '$.outcome.strategy') AS strategy,
  coalesce(json_extract(checkpoint, '$.outcome.evidence.after.isolation'), json_extract(checkpoint, '$.outcome.evidence.before.isolation')) AS verifier,
  json_extract(checkpoint, '$.outcome.cost') AS cost,
  coalesce(json_array_length(checkpoint, '$.outcome.attempts'), 0) AS attempts`;

export type SummaryRow = Pick<
  JobRow,
  | "id"
  | "delivery_id"
  | "installation_id"
  | "owner"
  | "repo"
  | "number"
  | "kind"
  | "state"
  | "requester"
  | "created_at"
  | "updated_at"
  | "error"
> & {
  title: string | null;
  stage: string | null;
  pull: number | null;
  outcome: "fixed" | "not-fixed" | null;
  stop_reason: string | null;
  strategy: string | null;
  verifier: string | null;
  cost: string | null;
  attempts: number;
};

const num = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) ? value : 0);

/** A web address fit for a link: http(s) only (never `javascript:`), else undefined. */
export function webLink(value: unknown): string | undefined {
  if (typeof value !== "string") return undefined;
  try {
    const url = new URL(value);
    return url.protocol === "https:" || url.protocol === "http:" ? url.href : undefined;
  } catch {
    return undefined;
  }
}

/** The check run's web address from a checkpoint's `checkRun` (object with html_url or url) or `checkRunUrl`. */
export function checkRunLink(checkRun: unknown, checkRunUrl: unknown): string | undefined {
  if (checkRun && typeof checkRun === "object") {
    const run = checkRun as Record<string, unknown>;
    const link = webLink(run.html_url) ?? webLink(run.url);
    if (link) return link;
  }
  return webLink(checkRunUrl);
}

/** `owner/repo#number` of every pull request a `pull_request.closed` delivery says was merged. */
const MERGED_PULLS = `SELECT DISTINCT json_extract(payload, '$.repository.owner.login') AS owner, json_extract(payload, '$.repository.name') AS repo,
  json_extract(payload, '$.pull_request.number') AS number FROM inbox
  WHERE event = 'pull_request' AND json_valid(payload) AND json_extract(payload, '$.action') = 'closed' AND json_extract(payload, '$.pull_request.merged') = 1`;

export const pullKey = (owner: string, repo: string, number: number) =>
  `${owner.toLowerCase()}/${repo.toLowerCase()}#${number}`;

export function toSummary(row: SummaryRow, merged: ReadonlySet<string> = new Set()): JobSummary {
  const cost = row.cost ? (JSON.parse(row.cost) as Record<string, unknown>) : undefined;
  return {
    id: Number(row.id),
    deliveryId: row.delivery_id,
    installationId: Number(row.installation_id),
    owner: row.owner,
    repo: row.repo,
    number: Number(row.number),
    kind: row.kind,
    state: row.state,
    requester: row.requester,
    title: row.title ?? "",
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
    stage: row.stage ?? undefined,
    outcome: row.outcome ?? undefined,
    stopReason: row.stop_reason ?? undefined,
    strategy: row.strategy ?? undefined,
    verifier: row.verifier ?? undefined,
    pull: row.pull === null ? undefined : Number(row.pull),
    merged: row.pull !== null && merged.has(pullKey(row.owner, row.repo, Number(row.pull))),
    error: row.error,
    cost: cost
      ? {
          llmCalls: num(cost.llmCalls),
          promptTokens: num(cost.promptTokens),
          completionTokens: num(cost.completionTokens),
          dollars: num(cost.dollars),
          llmSeconds: num(cost.llmSeconds),
          testRuns: num(cost.testRuns),
          testSeconds: num(cost.testSeconds),
          wallSeconds: num(cost.wallSeconds),
        }
      : undefined,
    attempts: Number(row.attempts),
  };
}

export class SqliteJobHistory implements JobHistory {
  private readonly db: DatabaseSync;

  /** `path`: the job store's file (written by the server; opened here read-only). */
  constructor(path: string) {
    this.db = new DatabaseSync(path, { readOnly: true });
    this.db.exec("PRAGMA busy_timeout = 5000;");
  }

  async jobs(options: { since?: number; limit?: number } = {}): Promise<JobSummary[]> {
    const rows = this.db
      .prepare(`SELECT ${SUMMARY_COLUMNS} FROM jobs WHERE created_at >= ? ORDER BY id DESC LIMIT ?`)
      .all(options.since ?? 0, options.limit ?? -1) as unknown as SummaryRow[];
    const merged = this.mergedPulls();
    return rows.map((row) => toSummary(row, merged));
  }

  private mergedPulls(): Set<string> {
    const rows = this.db.prepare(MERGED_PULLS).all() as Array<{ owner: unknown; repo: unknown; number: unknown }>;
    return new Set(
      rows.flatMap((r) =>
        typeof r.owner === "string" && typeof r.repo === "string" && typeof r.number === "number"
          ? [pullKey(r.owner, r.repo, r.number)]
          : [],
      ),
    );
  }

  async job(id: number): Promise<JobDetail | undefined> {
    const row = this.db
      .prepare(
        `SELECT ${SUMMARY_COLUMNS}, hint, json_extract(checkpoint, '$.outcome.message') AS message, json_extract(checkpoint, '$.outcome.attempts') AS attempt_list,
          json_extract(checkpoint, '$.outcome.evidence.before') AS before, json_extract(checkpoint, '$.outcome.evidence.after') AS after,
          json_extract(checkpoint, '$.outcome.evidence.regressionAfter') AS regression_after, json_extract(checkpoint, '$.outcome.changedFiles') AS changed_files,
          json_extract(checkpoint, '$.outcome.plan.steps') AS plan_steps,
          json_extract(checkpoint, '$.checkRun') AS check_run, json_extract(checkpoint, '$.checkRunUrl') AS check_run_url FROM jobs WHERE id = ?`,
      )
      .get(id) as
      | (SummaryRow & {
          hint: string | null;
          message: string | null;
          attempt_list: string | null;
          before: string | null;
          after: string | null;
          regression_after: string | null;
          changed_files: string | null;
          plan_steps: string | null;
          check_run: unknown;
          check_run_url: unknown;
        })
      | undefined;
    if (!row) return undefined;
    const parse = <T>(text: string | null, empty: T): T => (text ? (JSON.parse(text) as T) : empty);
    let checkRun: unknown;
    try {
      checkRun =
        typeof row.check_run === "string" && row.check_run.startsWith("{") ? JSON.parse(row.check_run) : undefined;
    } catch {
      checkRun = undefined;
    }
    return {
      ...toSummary(row, this.mergedPulls()),
      checkRunUrl: checkRunLink(checkRun, row.check_run_url),
      message: row.message ?? undefined,
      hint: row.hint ?? undefined,
      attemptList: parse<Attempt[]>(row.attempt_list, []),
      evidence: {
        before: parse<TestEvidence | undefined>(row.before, undefined),
        after: parse<TestEvidence | undefined>(row.after, undefined),
        regressionAfter: parse<TestEvidence | undefined>(row.regression_after, undefined),
      },
      changedFiles: parse<string[]>(row.changed_files, []),
      planSteps: parse<string[]>(row.plan_steps, []),
    };
  }

  async inbox(): Promise<InboxCounts> {
    const rows = this.db
      .prepare("SELECT state, COUNT(*) AS n, MIN(received_at) AS oldest FROM inbox GROUP BY state")
      .all() as Array<{ state: string; n: number; oldest: number }>;
    return inboxCounts(rows);
  }

  async close(): Promise<void> {
    this.db.close();
  }
}
