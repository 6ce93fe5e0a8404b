// What the halves of a red-build job share: the build under repair (the pull request's head,
// its checkout and runner, CI's evidence) and how a half says the job ends here.
import type { RunEvidence } from "../ci/run-evidence.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { CiForge, PullInfo } from "../forge/ci-forge.ts";
import type { Forge } from "../forge/forge.ts";
import type { Job } from "../jobs/store.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { RepoCache, Worktree } from "../workspace/repo-cache.ts";
import type { JobDeps } from "./job-deps.ts";
import type { StatusReporter } from "./status-reporter.ts";

/** The job ends here: the status comment's last words and the job's state. */
export type JobStop = { message: string; state: "done" | "failed"; error?: string | undefined };

export type Stopped = { stop: JobStop };

/** The red build of one pull request's head, as the job has it once the head is checked out. */
export type RedBuild = {
  job: Job;
  deps: JobDeps;
  status: StatusReporter;
  signal: AbortSignal;
  forge: Forge;
  ci: CiForge;
  pull: PullInfo;
  headSha: string;
  defaultBranch: string;
  /** The repository's config before the install's variables. */
  config: RepoConfig;
  cache: RepoCache;
  mirror: string;
  head: Worktree;
  runner: TestRunner;
  /** Every run of this job is kept from the other jobs' worktrees in the repository cache. */
  hidden: { hiddenPaths: string[] };
  evidence: RunEvidence[];
};
