// Totals over jobs, per repository and per week: jobs, how they ended (fixed, not fixed
// with the engine's stop reasons, failed, cancelled), pull requests, model calls, tokens,
// merged pull requests, dollars, test minutes and GitHub Actions minutes; and the weekly figures the charts draw.
import type { JobSummary } from "../ops/job-history.ts";

export type Totals = {
  key: string;
  jobs: number;
  fixed: number;
  notFixed: number;
  failed: number;
  cancelled: number;
  active: number;
  /** Why jobs did not fix: stop reasons (and `failed`, `cancelled`) with their counts. */
  reasons: Record<string, number>;
  pulls: number;
  /** Pull requests of these jobs that were merged. */
  merged: number;
  llmCalls: number;
  tokens: number;
  dollars: number;
  testMinutes: number;
  /** Test minutes of jobs whose tests ran on GitHub Actions (verifier `actions`): runner time the repository pays for. */
  actionsMinutes: number;
  /** Minutes from the job's creation to its pull request, per job that opened one. */
  minutesToPr: number[];
};

/** The Monday (UTC) of the week holding `ms`, as YYYY-MM-DD. */
export function weekOf(ms: number): string {
  const day = new Date(ms);
  const monday = new Date(
    Date.UTC(day.getUTCFullYear(), day.getUTCMonth(), day.getUTCDate() - ((day.getUTCDay() + 6) % 7)),
  );
  return monday.toISOString().slice(0, 10);
}

function empty(key: string): Totals {
  return {
    key,
    jobs: 0,
    fixed: 0,
    notFixed: 0,
    failed: 0,
    cancelled: 0,
    active: 0,
    reasons: {},
    pulls: 0,
    merged: 0,
    llmCalls: 0,
    tokens: 0,
    dollars: 0,
    testMinutes: 0,
    actionsMinutes: 0,
    minutesToPr: [],
  };
}

/**
 * Why a job failed or was cancelled, for grouping: the state and the first line of the
 * error the job ended with (e.g. "failed: GitHub answered 502 (…); gave up after 5
 * attempts"), numbers kept, cut at 100 characters.
 */
export function why(state: "failed" | "cancelled", error: string | null): string {
  const line = (error ?? "").split("\n")[0]?.trim() ?? "";
  if (!line) return state;
  return `${state}: ${line.length > 100 ? `${line.slice(0, 99)}…` : line}`;
}

export function addJob(t: Totals, job: JobSummary): void {
  t.jobs += 1;
  const reason = (r: string) => (t.reasons[r] = (t.reasons[r] ?? 0) + 1);
  if (job.state === "queued" || job.state === "running") t.active += 1;
  else if (job.state === "failed") {
    t.failed += 1;
    reason(why("failed", job.error));
  } else if (job.state === "cancelled") {
    t.cancelled += 1;
    reason(why("cancelled", job.error));
  } else if (job.outcome === "fixed") t.fixed += 1;
  else {
    t.notFixed += 1;
    reason(job.stopReason ?? "unknown");
  }
  if (job.pull !== undefined) {
    t.pulls += 1;
    if (job.merged) t.merged += 1;
    if (job.state === "done") t.minutesToPr.push(Math.max(0, (job.updatedAt - job.createdAt) / 60_000));
  }
  if (job.cost) {
    t.llmCalls += job.cost.llmCalls;
    t.tokens += job.cost.promptTokens + job.cost.completionTokens;
    t.dollars += job.cost.dollars;
    t.testMinutes += job.cost.testSeconds / 60;
    if (job.verifier === "actions") t.actionsMinutes += job.cost.testSeconds / 60;
  }
}

export function totalsBy(jobs: JobSummary[], keyOf: (job: JobSummary) => string): Totals[] {
  const map = new Map<string, Totals>();
  for (const job of jobs) {
    const key = keyOf(job);
    const t = map.get(key) ?? empty(key);
    addJob(t, job);
    map.set(key, t);
  }
  return [...map.values()];
}

export const byRepository = (jobs: JobSummary[]) =>
  totalsBy(jobs, (j) => `${j.owner}/${j.repo}`).sort((a, b) => b.jobs - a.jobs || a.key.localeCompare(b.key));
export const byWeek = (jobs: JobSummary[]) =>
  totalsBy(jobs, (j) => weekOf(j.createdAt)).sort((a, b) => a.key.localeCompare(b.key));

export function median(values: number[]): number | undefined {
  if (values.length === 0) return undefined;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[mid] : ((sorted[mid - 1] ?? 0) + (sorted[mid] ?? 0)) / 2;
}
