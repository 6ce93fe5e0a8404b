// The metrics read from the job history at scrape time: jobs by state and outcome, the
// queue and the inbox, per-job durations as histograms, and what the jobs spent (model
// calls, tokens, dollars, test runs and seconds). Repository names are not labels: the
// endpoint may be scraped by people who cannot read every repository.
import type { JobHistory } from "./job-history.ts";
import { MetricRegistry } from "../metrics/metric-registry.ts";

export const DURATION_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200];

export async function jobMetrics(history: JobHistory, now: number): Promise<MetricRegistry> {
  const m = new MetricRegistry();
  const jobs = await history.jobs();
  const inbox = await history.inbox();

  m.declare("autogen_jobs", "Jobs in the store, by kind and state", "gauge");
  m.declare(
    "autogen_job_outcomes_total",
    "Finished jobs, by kind, outcome (fixed, not-fixed, failed, cancelled) and stop reason",
    "counter",
  );
  m.declareHistogram(
    "autogen_job_stage_duration_seconds",
    "Per finished job: total (queued to finished), engine (the strategy's wall time), llm (waiting on the model), tests (test runs)",
    DURATION_BUCKETS,
  );
  const byState = new Map<string, { kind: string; state: string; n: number }>();
  const outcomes = new Map<string, { labels: Record<string, string>; n: number }>();
  let oldestQueued: number | undefined;
  const totals = {
    llmCalls: 0,
    promptTokens: 0,
    completionTokens: 0,
    dollars: 0,
    testRuns: 0,
    testSeconds: 0,
    attempts: 0,
    pulls: 0,
    merged: 0,
  };
  for (const job of jobs) {
    const k = `${job.kind}/${job.state}`;
    byState.set(k, { kind: job.kind, state: job.state, n: (byState.get(k)?.n ?? 0) + 1 });
    if (job.state === "queued") oldestQueued = Math.min(oldestQueued ?? job.createdAt, job.createdAt);
    if (job.cost) {
      totals.llmCalls += job.cost.llmCalls;
      totals.promptTokens += job.cost.promptTokens;
      totals.completionTokens += job.cost.completionTokens;
      totals.dollars += job.cost.dollars;
      totals.testRuns += job.cost.testRuns;
      totals.testSeconds += job.cost.testSeconds;
    }
    totals.attempts += job.attempts;
    if (job.pull !== undefined) totals.pulls += 1;
    if (job.merged) totals.merged += 1;
    if (job.state === "queued" || job.state === "running") continue;
    const outcome = job.state === "done" ? (job.outcome ?? "not-fixed") : job.state;
    const labels = {
      kind: job.kind,
      outcome,
      stop_reason: job.state === "done" ? (job.stopReason ?? "none") : job.state,
    };
    const ok = JSON.stringify(labels);
    outcomes.set(ok, { labels, n: (outcomes.get(ok)?.n ?? 0) + 1 });
    const help = "";
    m.observe(
      "autogen_job_stage_duration_seconds",
      help,
      { stage: "total" },
      Math.max(0, (job.updatedAt - job.createdAt) / 1000),
      DURATION_BUCKETS,
    );
    if (job.cost) {
      m.observe(
        "autogen_job_stage_duration_seconds",
        help,
        { stage: "engine" },
        job.cost.wallSeconds,
        DURATION_BUCKETS,
      );
      m.observe("autogen_job_stage_duration_seconds", help, { stage: "llm" }, job.cost.llmSeconds, DURATION_BUCKETS);
      m.observe("autogen_job_stage_duration_seconds", help, { stage: "tests" }, job.cost.testSeconds, DURATION_BUCKETS);
    }
  }
  for (const s of byState.values()) m.set("autogen_jobs", "", { kind: s.kind, state: s.state }, s.n);
  for (const o of outcomes.values()) m.inc("autogen_job_outcomes_total", "", o.labels, o.n);

  const queued = jobs.filter((j) => j.state === "queued").length;
  const running = jobs.filter((j) => j.state === "running").length;
  m.set(
    "autogen_queue_depth",
    "Jobs waiting for a worker (queued) and being worked on (running)",
    { state: "queued" },
    queued,
  );
  m.set("autogen_queue_depth", "", { state: "running" }, running);
  m.set(
    "autogen_queue_oldest_age_seconds",
    "Age of the oldest queued job (0 when none waits)",
    {},
    oldestQueued === undefined ? 0 : Math.max(0, (now - oldestQueued) / 1000),
  );
  for (const state of ["pending", "done", "failed"] as const)
    m.set("autogen_inbox_deliveries", "Webhook deliveries in the durable inbox, by state", { state }, inbox[state]);
  m.set(
    "autogen_inbox_oldest_pending_age_seconds",
    "Age of the oldest delivery still pending in the inbox (0 when none)",
    {},
    inbox.oldestPendingAt === undefined ? 0 : Math.max(0, (now - inbox.oldestPendingAt) / 1000),
  );

  m.inc("autogen_llm_calls_total", "Model calls made by jobs", {}, totals.llmCalls);
  m.inc("autogen_llm_tokens_total", "Model tokens used by jobs, by type", { type: "prompt" }, totals.promptTokens);
  m.inc("autogen_llm_tokens_total", "", { type: "completion" }, totals.completionTokens);
  m.inc(
    "autogen_llm_dollars_total",
    "Estimated model spend of jobs in US dollars (the price table of each model)",
    {},
    totals.dollars,
  );
  m.inc("autogen_test_runs_total", "Test runs made by jobs", {}, totals.testRuns);
  m.inc("autogen_test_seconds_total", "Seconds jobs spent running tests", {}, totals.testSeconds);
  m.inc("autogen_attempts_total", "Candidate fixes tried by jobs", {}, totals.attempts);
  m.inc("autogen_pull_requests_total", "Jobs that opened or updated a pull request", {}, totals.pulls);
  m.inc(
    "autogen_pull_requests_merged_total",
    "Pull requests of jobs that were merged (a pull_request.closed delivery said so)",
    {},
    totals.merged,
  );
  return m;
}
