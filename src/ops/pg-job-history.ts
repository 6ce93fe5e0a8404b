// The job history read from the Postgres store (DATABASE_URL): the same JobSummary and
// JobDetail as the SQLite reader, with its own small pool. The store keeps checkpoints and
// payloads as JSON text; each row's JSON is read here with the meaning SQLite's
// json_extract gives it in sqlite-job-history.ts (objects as JSON text, true as 1), so both
// readers share toSummary and show an operator the same pages whichever store is in use.
import pg from "pg";
import type { Attempt, TestEvidence } from "../engine/task.ts";
import { inboxCounts, type InboxCounts, type JobDetail, type JobHistory, type JobSummary } from "./job-history.ts";
import { checkRunLink, pullKey, SqliteJobHistory, toSummary, type SummaryRow } from "./sqlite-job-history.ts";

type JobRow = Omit<
  SummaryRow,
  "title" | "stage" | "pull" | "outcome" | "stop_reason" | "strategy" | "verifier" | "cost" | "attempts"
> & { snapshot: string; checkpoint: string; hint: string | null };

const JOB_COLUMNS =
  "id, delivery_id, installation_id, owner, repo, number, kind, state, requester, created_at, updated_at, error, snapshot, checkpoint, hint";

function parseObject(text: string): Record<string, unknown> {
  try {
    const value = JSON.parse(text) as unknown;
    return value && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
  } catch {
    return {};
  }
}

/** The value at `path`, as SQLite's json_extract returns it: null when absent, JSON text for objects and arrays, 1/0 for booleans. */
function extract(root: unknown, path: readonly string[]): unknown {
  let value = root;
  for (const key of path) {
    if (!value || typeof value !== "object" || Array.isArray(value)) return null;
    value = (value as Record<string, unknown>)[key];
  }
  if (value === undefined || value === null) return null;
  if (typeof value === "object") return JSON.stringify(value);
  if (typeof value === "boolean") return value ? 1 : 0;
  return value;
}

const text = (value: unknown): string | null => (typeof value === "string" ? value : null);
const number = (value: unknown): number | null => (typeof value === "number" ? value : null);

function summaryRow(row: JobRow): { summary: SummaryRow; checkpoint: Record<string, unknown> } {
  const checkpoint = parseObject(row.checkpoint);
  const snapshot = parseObject(row.snapshot);
  const attempts = (checkpoint.outcome as { attempts?: unknown } | undefined)?.attempts;
  return {
    checkpoint,
    summary: {
      ...row,
      title: text(extract(snapshot, ["title"])),
      stage: text(extract(checkpoint, ["stage"])),
      pull: number(extract(checkpoint, ["pull"])),
      outcome: text(extract(checkpoint, ["outcome", "status"])) as SummaryRow["outcome"],
      stop_reason: text(extract(checkpoint, ["outcome", "stopReason"])),
      strategy: text(extract(checkpoint, ["outcome", "strategy"])),
      verifier:
        text(extract(checkpoint, ["outcome", "evidence", "after", "isolation"])) ??
        text(extract(checkpoint, ["outcome", "evidence", "before", "isolation"])),
      cost: text(extract(checkpoint, ["outcome", "cost"])),
      attempts: Array.isArray(attempts) ? attempts.length : 0,
    },
  };
}

export class PgJobHistory implements JobHistory {
  private readonly pool: pg.Pool;

  /** `connectionString`: the store's DATABASE_URL (the store migrates the schema; this only reads). */
  constructor(connectionString: string) {
    this.pool = new pg.Pool({ connectionString, max: 2 });
    // An idle connection the server dropped must not crash the process.
    this.pool.on("error", () => undefined);
  }

  async jobs(options: { since?: number; limit?: number } = {}): Promise<JobSummary[]> {
    const limit = options.limit !== undefined && options.limit >= 0 ? options.limit : null;
    const { rows } = await this.pool.query<JobRow>(
      `SELECT ${JOB_COLUMNS} FROM jobs WHERE created_at >= $1 ORDER BY id DESC LIMIT $2`,
      [options.since ?? 0, limit],
    );
    const merged = await this.mergedPulls();
    return rows.map((row) => toSummary(summaryRow(row).summary, merged));
  }

  private async mergedPulls(): Promise<Set<string>> {
    // Only closed-and-merged pull request deliveries matter; the text filter keeps the rest unread.
    const { rows } = await this.pool.query<{ payload: string }>(
      "SELECT payload FROM inbox WHERE event = 'pull_request' AND payload LIKE '%\"merged\"%'",
    );
    const merged = new Set<string>();
    for (const { payload } of rows) {
      const body = parseObject(payload);
      const owner = extract(body, ["repository", "owner", "login"]);
      const repo = extract(body, ["repository", "name"]);
      const pull = extract(body, ["pull_request", "number"]);
      if (
        extract(body, ["action"]) === "closed" &&
        extract(body, ["pull_request", "merged"]) === 1 &&
        typeof owner === "string" &&
        typeof repo === "string" &&
        typeof pull === "number"
      )
        merged.add(pullKey(owner, repo, pull));
    }
    return merged;
  }

  async job(id: number): Promise<JobDetail | undefined> {
    const row = (await this.pool.query<JobRow>(`SELECT ${JOB_COLUMNS} FROM jobs WHERE id = $1`, [id])).rows[0];
    if (!row) return undefined;
    const { summary, checkpoint } = summaryRow(row);
    const outcome = (checkpoint.outcome ?? {}) as Record<string, unknown>;
    const evidence = (outcome.evidence ?? {}) as Record<string, unknown>;
    const plan = (outcome.plan ?? {}) as Record<string, unknown>;
    const list = <T>(value: unknown): T[] => (Array.isArray(value) ? (value as T[]) : []);
    const object = <T>(value: unknown): T | undefined =>
      value && typeof value === "object" && !Array.isArray(value) ? (value as T) : undefined;
    return {
      ...toSummary(summary, await this.mergedPulls()),
      checkRunUrl: checkRunLink(object(checkpoint.checkRun), checkpoint.checkRunUrl),
      message: text(outcome.message) ?? undefined,
      hint: row.hint ?? undefined,
      attemptList: list<Attempt>(outcome.attempts),
      evidence: {
        before: object<TestEvidence>(evidence.before),
        after: object<TestEvidence>(evidence.after),
        regressionAfter: object<TestEvidence>(evidence.regressionAfter),
      },
      changedFiles: list<string>(outcome.changedFiles),
      planSteps: list<string>(plan.steps),
    };
  }

  async inbox(): Promise<InboxCounts> {
    const { rows } = await this.pool.query<{ state: string; n: string; oldest: string | null }>(
      "SELECT state, COUNT(*) AS n, MIN(received_at) AS oldest FROM inbox GROUP BY state",
    );
    return inboxCounts(rows);
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/** The reader for the store a server or the dashboard command uses: Postgres when DATABASE_URL is set, else the SQLite file. */
export function openJobHistory(config: { databaseUrl?: string | undefined; dbPath: string }): JobHistory {
  return config.databaseUrl ? new PgJobHistory(config.databaseUrl) : new SqliteJobHistory(config.dbPath);
}
