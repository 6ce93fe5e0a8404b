// The verifier of one App job, chosen by `chooseVerifier` with the job's dependencies,
// and named in the status comment's configuration line (which backend ran is part of
// the evidence).
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import type { Job } from "../jobs/job-store.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { GitTarget } from "../forge/publish-commit.ts";
import { chooseVerifier, type VerifierChoice } from "./choose-verifier.ts";
import type { JobDeps } from "./job-deps.ts";
import type { StatusReporter } from "./status-reporter.ts";

export type JobWorkspace = {
  ci: CiForge;
  defaultBranch: string;
  mirror: string;
  target: GitTarget;
  runner: TestRunner;
  fork: boolean;
};

export async function jobVerifier(
  deps: JobDeps,
  job: Job,
  status: StatusReporter,
  config: RepoConfig,
  where: JobWorkspace,
  signal: AbortSignal,
): Promise<VerifierChoice> {
  const choice = await chooseVerifier({
    config,
    ...where,
    owner: job.owner,
    repo: job.repo,
    jobId: job.id,
    signal,
    waiters: deps.waiters,
    pollMs: deps.pollMs,
    actionsTimeoutMs: deps.actionsTimeoutMs,
    onRun: (run) =>
      status.set("Attempts", "running", `verification run [${run.id}](${run.url}) (${run.candidates} candidate(s))`),
  });
  // Without a model endpoint on the server, every job runs the model-free strategy.
  const strategy = deps.llmFor ? config.strategy.name : "template (no model endpoint configured)";
  status.set(
    "Configuration",
    "done",
    `strategy ${strategy}, tests ${config.test.command ?? where.runner.name}, verifier: ${choice.why}`,
  );
  return choice;
}
