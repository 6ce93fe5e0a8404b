// What a job keeps between runs (merged patch by patch, read back after a restart or a
// retry): the schema both stores parse a stored checkpoint with. A field that breaks it is
// dropped (the job goes on as if it had never been recorded) and named in a warning; keys
// it does not know are kept as they are. The engine's outcome and the red build's
// attribution are checked here for the shape the doors rely on; their full types live on
// higher floors (src/engine/task.ts, src/verify/attribution.ts).
import { z } from "zod";

/** The check run a job reports on (`html_url`/`url`: as GitHub answered, for the job page). */
const checkRunSchema = z.looseObject({
  id: z.number().optional(),
  sha: z.string().optional(),
  completed: z.boolean().optional(),
  html_url: z.string().optional(),
  url: z.string().optional(),
});

/** A fork's fix opened as a pull request by a click on "Apply fix". */
const appliedSchema = z.looseObject({ pull: z.number(), url: z.string(), by: z.string() });

const jsonObject = z.looseObject({});

/** The engine's Outcome as stored: the fields the doors read without going to the engine's type. */
export const storedOutcomeSchema = z.looseObject({
  strategy: z.string(),
  status: z.enum(["fixed", "not-fixed"]),
  stopReason: z.string(),
  message: z.string(),
  plan: jsonObject,
  evidence: jsonObject,
  /** Absent from hand-made outcomes (the dashboard's fixtures); the doors' reader requires it. */
  diff: z.string().optional(),
  changedFiles: z.array(z.string()),
  closestAttempt: z
    .looseObject({ diff: z.string(), files: z.array(z.string()), passed: z.number(), failed: z.number() })
    .optional(),
  attempts: z.array(jsonObject),
  cost: jsonObject,
});

/** A red build's attribution as stored (verify/attribution.ts). */
export const storedAttributionSchema = z.looseObject({
  tests: z.array(
    z.looseObject({ id: z.string(), verdict: z.string(), base: z.array(z.string()), candidate: z.array(z.string()) }),
  ),
  counts: z.record(z.string(), z.number()),
  testRuns: z.number(),
});

export const jobCheckpointSchema = z.looseObject({
  /** The engine's last stage, and its attempt when it is in one (job-progress.ts). */
  stage: z.string().optional(),
  attempt: z.number().optional(),
  /** Red build: the PR head it repairs, and the run or suite that was red on it. */
  headSha: z.string().optional(),
  runId: z.number().optional(),
  checkSuiteId: z.number().optional(),
  /** Where work starts (review feedback: the PR's branch), the branch pushed to, the issue it closes or refers to. */
  base: z.string().optional(),
  branch: z.string().optional(),
  issue: z.number().optional(),
  refs: z.boolean().optional(),
  planOnly: z.boolean().optional(),
  outcome: storedOutcomeSchema.optional(),
  attribution: storedAttributionSchema.optional(),
  /** The commit the bot pushed, and its pull request. */
  pushed: z.string().optional(),
  pull: z.number().optional(),
  checkRun: checkRunSchema.optional(),
  applied: appliedSchema.optional(),
  /** Failed GitHub attempts so far (job-retry.ts): a restart does not reset the count. */
  githubFailures: z.number().optional(),
  /** Parsed where they are read (report/check-annotations.ts, report/check-run-summary.ts). */
  failureSites: z.unknown().optional(),
  statusReport: z.unknown().optional(),
});

export type JobCheckpoint = z.infer<typeof jobCheckpointSchema>;

/** Where a broken stored checkpoint is reported (the store's logger). */
export type CheckpointWarn = (meta: { jobId: number; dropped: string[]; problems: string[] }, message: string) => void;

/** A warning as one JSON line on stderr: for a store opened without a logger (scripts, tests). */
export const stderrWarn: CheckpointWarn = (meta, message) => {
  process.stderr.write(`${JSON.stringify({ level: "warn", msg: message, ...meta })}\n`);
};

/**
 * A stored checkpoint (JSON text) as its schema says: text that is not a JSON object reads
 * as an empty checkpoint, a field that breaks the schema is dropped; either is warned about.
 */
export function parseCheckpoint(jobId: number, text: string, warn: CheckpointWarn): JobCheckpoint {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    warn(
      { jobId, dropped: ["*"], problems: [(error as Error).message] },
      "stored checkpoint is not JSON; read as empty",
    );
    return {};
  }
  if (typeof value !== "object" || value === null || Array.isArray(value)) {
    warn(
      { jobId, dropped: ["*"], problems: ["not a JSON object"] },
      "stored checkpoint is not an object; read as empty",
    );
    return {};
  }
  const parsed = jobCheckpointSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const dropped = [...new Set(parsed.error.issues.map((issue) => String(issue.path[0])))];
  const problems = parsed.error.issues.map((issue) => `${issue.path.join(".")}: ${issue.message}`);
  warn({ jobId, dropped, problems }, "stored checkpoint fields break their schema; dropped");
  const kept = Object.fromEntries(Object.entries(value).filter(([key]) => !dropped.includes(key)));
  // Every field that failed is gone, and the rest passed: this parse succeeds.
  return jobCheckpointSchema.parse(kept);
}
