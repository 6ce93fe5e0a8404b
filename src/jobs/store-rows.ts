// A stored row as the rest of the program sees it, the same for both job stores: SQLite
// gives numbers and strings as they are, Postgres gives BIGINT columns as strings, so
// every column is converted, never trusted to already have its type.
import { parseCheckpoint, type CheckpointWarn } from "./job-checkpoint.ts";
import type { InboxRow, InboxState, Job, JobKind, JobRequest, JobState } from "./store.ts";

type Row = Record<string, unknown>;

/** The `jobs` table's columns as SQLite returns them (Postgres gives its BIGINT columns as strings). */
export type JobRow = {
  id: number;
  delivery_id: string;
  installation_id: number;
  owner: string;
  repo: string;
  number: number;
  kind: JobKind;
  requester: string;
  requester_id: number;
  snapshot: string;
  hint: string | null;
  state: JobState;
  checkpoint: string;
  status_comment_id: number | null;
  error: string | null;
  created_at: number;
  updated_at: number;
};

const text = (value: unknown): string => String(value);
const textOrNull = (value: unknown): string | null => (value === null || value === undefined ? null : String(value));

export function inboxRowFrom(row: Row): InboxRow {
  return {
    deliveryId: text(row.delivery_id),
    event: text(row.event),
    payload: text(row.payload),
    state: row.state as InboxState,
    attempts: Number(row.attempts),
    nextAttemptAt: Number(row.next_attempt_at),
    error: textOrNull(row.error),
  };
}

/** `warn`: where a stored checkpoint that breaks its schema is reported (its broken fields are dropped). */
export function jobFrom(row: Row | JobRow, warn: CheckpointWarn): Job {
  const id = Number(row.id);
  return {
    id,
    deliveryId: text(row.delivery_id),
    installationId: Number(row.installation_id),
    owner: text(row.owner),
    repo: text(row.repo),
    number: Number(row.number),
    kind: row.kind as JobKind,
    requester: text(row.requester),
    requesterId: Number(row.requester_id),
    snapshot: JSON.parse(text(row.snapshot)) as { title: string; body: string },
    hint: textOrNull(row.hint) ?? undefined,
    state: row.state as JobState,
    checkpoint: parseCheckpoint(id, text(row.checkpoint), warn),
    statusCommentId:
      row.status_comment_id === null || row.status_comment_id === undefined ? null : Number(row.status_comment_id),
    error: textOrNull(row.error),
  };
}

/** The values of a new job's row, in the column order both stores insert them (after them: the times). */
export function newJobValues(request: JobRequest): Array<string | number | null> {
  return [
    request.deliveryId,
    request.installationId,
    request.owner,
    request.repo,
    request.number,
    request.kind,
    request.requester,
    request.requesterId,
    JSON.stringify(request.snapshot),
    request.hint ?? null,
    JSON.stringify(request.checkpoint ?? {}),
  ];
}
