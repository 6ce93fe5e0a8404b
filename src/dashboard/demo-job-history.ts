// The sample job history `autogen-bot dashboard --demo` renders, so the dashboard can be
// seen before anything is deployed: invented jobs in resources/dashboard-demo/, shaped
// like what the job store records, read through the same JobHistory port as a real store.
import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { InboxCounts, JobDetail, JobHistory } from "../ops/job-history.ts";

export const DEMO_HISTORY_FILE = fileURLToPath(
  new URL("../../resources/dashboard-demo/job-history.json", import.meta.url),
);

const evidence = z.object({
  command: z.array(z.string()),
  isolation: z.string(),
  passed: z.number().int(),
  failed: z.number().int(),
  skipped: z.number().int(),
  tests: z.array(
    z.object({ id: z.string(), status: z.enum(["pass", "fail", "error", "skip"]), message: z.string().optional() }),
  ),
  limit: z.string().optional(),
});

const attempt = z.object({
  index: z.number().int(),
  description: z.string(),
  result: z.enum([
    "still-failing",
    "visible-regressed",
    "regression-failed",
    "plausible",
    "edit-failed",
    "timed-out",
    "tampering",
  ]),
  reason: z.string().optional(),
  passed: z.number().int(),
  failed: z.number().int(),
  limit: z.string().optional(),
  family: z.string().optional(),
  file: z.string().optional(),
  line: z.number().int().optional(),
  score: z.number().optional(),
  analysis: z.string().optional(),
});

const cost = z.object({
  llmCalls: z.number(),
  promptTokens: z.number(),
  completionTokens: z.number(),
  dollars: z.number(),
  llmSeconds: z.number(),
  testRuns: z.number(),
  testSeconds: z.number(),
  wallSeconds: z.number(),
});

const job = z.object({
  id: z.number().int(),
  deliveryId: z.string(),
  installationId: z.number().int(),
  owner: z.string(),
  repo: z.string(),
  number: z.number().int(),
  kind: z.enum(["fix", "plan", "ci"]),
  state: z.enum(["queued", "running", "done", "failed", "cancelled"]),
  requester: z.string(),
  title: z.string(),
  createdAt: z.number(),
  updatedAt: z.number(),
  stage: z.string().optional(),
  outcome: z.enum(["fixed", "not-fixed"]).optional(),
  stopReason: z.string().optional(),
  strategy: z.string().optional(),
  verifier: z.string().optional(),
  pull: z.number().int().optional(),
  merged: z.boolean(),
  error: z.string().optional(),
  cost: cost.optional(),
  attempts: z.number().int(),
  message: z.string().optional(),
  hint: z.string().optional(),
  checkRunUrl: z.string().optional(),
  attemptList: z.array(attempt),
  evidence: z.object({ before: evidence.optional(), after: evidence.optional(), regressionAfter: evidence.optional() }),
  changedFiles: z.array(z.string()),
  planSteps: z.array(z.string()),
});

const historyFile = z.object({ about: z.string(), now: z.number(), jobs: z.array(job) });

export type DemoHistory = JobHistory & { now: number };

/** The sample history from `file` (default: the bundled one); `now` is when it was taken. */
export function demoJobHistory(file = DEMO_HISTORY_FILE): DemoHistory {
  const parsed = historyFile.safeParse(JSON.parse(readFileSync(file, "utf8")));
  if (!parsed.success) throw new Error(`${file} is not a job history: ${parsed.error.issues[0]?.message ?? "invalid"}`);
  // Absent optional fields become the explicit undefined the port's types spell out.
  const jobs: JobDetail[] = parsed.data.jobs.map((j) => ({
    ...j,
    ...{ stage: j.stage, outcome: j.outcome, stopReason: j.stopReason, strategy: j.strategy, verifier: j.verifier },
    ...{ pull: j.pull, cost: j.cost, message: j.message, hint: j.hint, checkRunUrl: j.checkRunUrl },
    error: j.error ?? null,
  }));
  const newestFirst = [...jobs].sort((a, b) => b.createdAt - a.createdAt);
  const inbox: InboxCounts = { pending: 0, done: jobs.length, failed: 0, oldestPendingAt: undefined };
  return {
    now: parsed.data.now,
    async jobs(options = {}) {
      const since = options.since ?? 0;
      return newestFirst.filter((j) => j.createdAt >= since).slice(0, options.limit ?? newestFirst.length);
    },
    async job(id) {
      return jobs.find((j) => j.id === id);
    },
    async inbox() {
      return inbox;
    },
    async close() {},
  };
}
