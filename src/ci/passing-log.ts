// The log of the same job in the most recent successful run of the same workflow on the base
// branch: what a green build prints, so the digest can set aside every line a red build
// shares with it. GitHub lists a workflow's runs by branch and conclusion, newest first.
import type { CiForge, WorkflowJob, WorkflowRun } from "../forge/ci-forge.ts";
import { cleanJobLog } from "./job-log.ts";

export type PassingRun = { run: WorkflowRun; jobs: WorkflowJob[] };
export type PassingLog = { runId: number; jobName: string; branch: string; log: string };

/** The workflow file of a run (`.github/workflows/ci.yml` → `ci.yml`), as the runs API names it. */
export function workflowFileOf(run: WorkflowRun): string | undefined {
  const file = run.path.split("@")[0]?.split("/").at(-1);
  return file && /\.ya?ml$/.test(file) ? file : undefined;
}

export async function findPassingRun(
  ci: CiForge,
  owner: string,
  repo: string,
  red: WorkflowRun,
  branch: string,
): Promise<PassingRun | undefined> {
  const workflow = workflowFileOf(red);
  if (!workflow) return undefined;
  const runs = await ci.workflowRuns(owner, repo, { workflow, branch, status: "success" });
  const run = runs.find((r) => r.id !== red.id && r.conclusion === "success" && r.headBranch === branch);
  if (!run) return undefined;
  return { run, jobs: await ci.jobs(owner, repo, run.id) };
}

/** The passing log of the job named like the failing one, if that job ran and succeeded. */
export async function passingLogOf(
  ci: CiForge,
  owner: string,
  repo: string,
  passing: PassingRun,
  jobName: string,
  maxLogBytes: number,
): Promise<PassingLog | undefined> {
  const job = passing.jobs.find((j) => j.name === jobName && j.conclusion === "success");
  if (!job) return undefined;
  const { text } = await ci.jobLog(owner, repo, job.id, maxLogBytes);
  return { runId: passing.run.id, jobName: job.name, branch: passing.run.headBranch ?? "", log: cleanJobLog(text) };
}
