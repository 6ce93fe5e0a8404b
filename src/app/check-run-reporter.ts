// The job's check run named `autogen`, on the commit the job concerns: a red build's
// pull request head (created in progress as soon as the job knows it), or the bot's own
// commit for an issue's fix (created in progress when the commit is made, completed
// when the job ends, so a reviewer opening the PR sees it on its head commit). When the
// job ends it completes with the verdict, the report as its summary, annotations (in
// batches of 50, GitHub's limit per request) and the requested actions `Retry` and, on
// a fork's patch, `Apply fix`. A check run is a secondary surface: when GitHub refuses
// a checks call the job goes on, and the failure is logged.
import {
  MAX_ANNOTATIONS_PER_REQUEST,
  type CheckAction,
  type CheckAnnotation,
  type CheckRunForge,
} from "../forge/check-run-forge.ts";
import type { Job, Store } from "../jobs/store.ts";
import {
  changedLineAnnotations,
  failureAnnotations,
  failureSites,
  MAX_ANNOTATIONS,
  parseFailureSites,
} from "../report/check-annotations.ts";
import { checkVerdict } from "../report/check-run-summary.ts";
import type { TestReport } from "../verify/test-report.ts";
import { checkpointAttribution, checkpointOutcome } from "./checkpoint-results.ts";

export type CheckRunRecord = { id: number; sha: string; completed?: boolean };
type Log = { info: (meta: object, msg: string) => void; warn: (meta: object, msg: string) => void };

export const RETRY_ACTION: CheckAction = {
  label: "Retry",
  description: "Run this autogen job again",
  identifier: "retry",
};
export const APPLY_ACTION: CheckAction = {
  label: "Apply fix",
  description: "Open a pull request with this patch",
  identifier: "apply",
};

export function checkRunRecord(job: Job): CheckRunRecord | undefined {
  const { id, sha, completed } = job.checkpoint.checkRun ?? {};
  return id !== undefined && Number.isInteger(id) && sha !== undefined
    ? { id, sha, completed: completed === true }
    : undefined;
}

/** The commit a job's check run belongs on: the red build's head, or the commit the bot made. */
function commitOf(job: Job): string | undefined {
  const sha = job.kind === "ci" ? job.checkpoint.headSha : job.checkpoint.pushed;
  return typeof sha === "string" && /^[0-9a-f]{40,64}$/.test(sha) ? sha : undefined;
}

/** Records where the failing tests of `reports` are (in the worktree at `root`), for the check run's annotations. */
export async function recordFailureSites(
  store: Store,
  job: Job,
  reports: readonly TestReport[],
  root: string,
): Promise<void> {
  await store.checkpoint(job.id, { failureSites: failureSites(reports, root) });
}

export class CheckRunReporter {
  private readonly store: Store;
  private readonly checksFor: (installationId: number) => Promise<CheckRunForge>;
  private readonly log: Log;

  constructor(deps: { store: Store; checksFor: (installationId: number) => Promise<CheckRunForge>; log: Log }) {
    this.store = deps.store;
    this.checksFor = deps.checksFor;
    this.log = deps.log;
  }

  /** The job knows its commit: the check run is created in progress there (once per commit). */
  async begin(job: Job, sha: string): Promise<void> {
    try {
      const current = (await this.store.get(job.id)) ?? job;
      if (checkRunRecord(current)?.sha === sha) return;
      const checks = await this.checksFor(job.installationId);
      const title =
        job.kind === "ci" ? `Working on the red build of #${job.number}` : `Checking the fix for #${job.number}`;
      const id = await checks.create(job.owner, job.repo, {
        headSha: sha,
        externalId: String(job.id),
        output: {
          title,
          summary: `autogen-bot job ${job.id} is in progress; the status comment on #${job.number} follows it step by step.`,
        },
      });
      await this.store.checkpoint(job.id, { checkRun: { id, sha } satisfies CheckRunRecord });
    } catch (error) {
      this.log.warn({ jobId: job.id, err: (error as Error).message }, "check run not created");
    }
  }

  /**
   * The job ended: the check run completes with its verdict (created completed-to-be when
   * none was made yet). `again`: a later change of its text (a fix applied), with no
   * annotations, since GitHub appends annotations on every update.
   */
  async complete(jobId: number, options: { again?: boolean; note?: string } = {}): Promise<void> {
    const job = await this.store.get(jobId);
    if (!job || job.state === "queued" || job.state === "running") return;
    const sha = commitOf(job);
    if (!sha) return;
    try {
      const checks = await this.checksFor(job.installationId);
      let record = checkRunRecord(job);
      if (record?.completed && !options.again) return;
      if (!record || record.sha !== sha) {
        const id = await checks.create(job.owner, job.repo, {
          headSha: sha,
          externalId: String(job.id),
          output: { title: "Finishing", summary: `autogen-bot job ${job.id}.` },
        });
        record = { id, sha };
        await this.store.checkpoint(job.id, { checkRun: record });
      }
      const verdict = checkVerdict(job);
      const applied = job.checkpoint.applied;
      const title = applied?.url ? `Fix applied: ${applied.url}` : verdict.title;
      const summary = options.note ? `${options.note}\n\n${verdict.summary}` : verdict.summary;
      const annotations = options.again ? [] : annotationsOf(job);
      const batches: CheckAnnotation[][] = [];
      for (let i = 0; i < annotations.length; i += MAX_ANNOTATIONS_PER_REQUEST)
        batches.push(annotations.slice(i, i + MAX_ANNOTATIONS_PER_REQUEST));
      // All but the last batch while the run is still in progress, the last with the conclusion.
      for (const batch of batches.slice(0, -1))
        await checks.update(job.owner, job.repo, record.id, { output: { title, summary, annotations: batch } });
      const actions = [RETRY_ACTION, ...(verdict.forkPatch && !applied ? [APPLY_ACTION] : [])];
      await checks.update(job.owner, job.repo, record.id, {
        output: { title, summary, annotations: batches.at(-1) },
        conclusion: verdict.conclusion,
        actions,
      });
      await this.store.checkpoint(job.id, { checkRun: { ...record, completed: true } });
      this.log.info(
        { jobId: job.id, checkRun: record.id, conclusion: verdict.conclusion, annotations: annotations.length },
        "check run completed",
      );
    } catch (error) {
      this.log.warn({ jobId: job.id, err: (error as Error).message }, "check run not completed");
    }
  }
}

function annotationsOf(job: Job): CheckAnnotation[] {
  const outcome = checkpointOutcome(job.checkpoint);
  const out: CheckAnnotation[] = [];
  if (outcome) {
    // An issue's check run is on the bot's commit (the new side); a red build's on the head the fix applies to (the old side).
    const side = job.kind === "ci" ? "old" : "new";
    if (outcome.status === "fixed")
      out.push(...changedLineAnnotations(outcome.diff, outcome.changedFiles, side, outcome.message));
    else if (job.kind !== "ci" && job.checkpoint.pushed !== undefined && outcome.closestAttempt)
      out.push(
        ...changedLineAnnotations(
          outcome.closestAttempt.diff,
          outcome.closestAttempt.files,
          "new",
          `closest attempt, not a fix: ${outcome.message}`,
        ),
      );
  }
  out.push(
    ...failureAnnotations(
      parseFailureSites(job.checkpoint.failureSites),
      checkpointAttribution(job.checkpoint),
      outcome?.status === "fixed",
    ),
  );
  return out.slice(0, MAX_ANNOTATIONS);
}
