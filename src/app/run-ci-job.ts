// One job for a red build on a pull request (a failed workflow run or check suite, or
// `/autogen fix` on the PR): collect the evidence from CI (red-build-evidence.ts), rerun the
// failing tests at the merge base and at the head to see which the PR caused, explaining
// (and stopping) when none was (red-build-attribution.ts), otherwise repair with the job
// pipeline (repair-red-build.ts) and open a PR into the PR's head branch, or for a fork,
// comment the patch (publish-repair.ts). If the head moves while the job runs, it stops and
// a new job starts on the new head.
import { dirname } from "node:path";
import type { Job } from "../jobs/store.ts";
import { RepoCache, type Worktree } from "../workspace/repo-cache.ts";
import { checkpointOutcome } from "./checkpoint-results.ts";
import { endJobOnError, JobCancelled } from "./end-job.ts";
import { beginJob } from "./job-config.ts";
import type { JobDeps } from "./job-deps.ts";
import { applyStoredDiff } from "./publish-change.ts";
import { publishRepair } from "./publish-repair.ts";
import { attributeRedBuild, prepareCheckouts } from "./red-build-attribution.ts";
import { readCiEvidence, redRuns } from "./red-build-evidence.ts";
import type { JobStop, RedBuild } from "./red-build.ts";
import { repairRedBuild } from "./repair-red-build.ts";
import { CI_STEPS, StatusReporter } from "./status-reporter.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";

/** The pull request's head moved while the job ran. */
export class HeadMoved extends Error {
  readonly sha: string;
  constructor(sha: string) {
    super(`the head of the pull request moved to ${sha.slice(0, 7)}`);
    this.sha = sha;
  }
}

export async function runCiJob(job: Job, deps: JobDeps, signal: AbortSignal): Promise<void> {
  const forge = await deps.forgeFor(job.installationId);
  const ci = await deps.ciFor(job.installationId);
  const status = new StatusReporter(forge, deps.store, job, deps.statusThrottleMs, CI_STEPS);
  const { owner, repo, number } = job;
  const worktrees: Worktree[] = [];
  let headSha = job.checkpoint.headSha;
  const ensureCurrent = async () => {
    if (signal.aborted)
      throw new JobCancelled(String((signal.reason as Error | undefined)?.message ?? "stopped on request"));
    const now = await ci.pull(owner, repo, number);
    if (headSha && now.headSha !== headSha) throw new HeadMoved(now.headSha);
  };
  const end = async (stop: JobStop) => {
    await status.finish(stop.message);
    await deps.store.finish(job.id, stop.state, stop.error);
  };
  try {
    const begun = await beginJob(forge, deps.store, status, job, deps.configOverride);
    if (!begun) return;
    const { repository, config } = begun;
    const pull = await ci.pull(owner, repo, number);
    if (pull.state !== "open")
      return await end({ message: `Nothing to do: #${number} is ${pull.state}.`, state: "done" });
    if (headSha && pull.headSha !== headSha) throw new HeadMoved(pull.headSha);
    headSha = pull.headSha;
    await deps.store.checkpoint(job.id, { headSha });
    await deps.checkRunStarted?.(job, headSha);

    // The evidence: the red runs of the head commit (waiting for runs still in progress).
    status.set("CI evidence", "running");
    const runs = await redRuns(ci, job, pull, config, deps, signal);
    const suiteId = job.checkpoint.headSha === headSha ? job.checkpoint.checkSuiteId : undefined;
    if (runs.length === 0 && suiteId === undefined) {
      status.set("CI evidence", "done", `no failed run on ${headSha.slice(0, 7)}`);
      return await end({
        message: `Nothing to repair: CI is not red on \`${headSha.slice(0, 7)}\` (no failed workflow run for the head of #${number}).`,
        state: "done",
      });
    }

    const cache = new RepoCache({ root: deps.cacheRoot, signal });
    // The token clones and fetches only; the bot writes through the Git Data API (gitTarget).
    const credentials = { username: "x-access-token", password: await forge.cloneToken() };
    const mirror = await cache.mirror(repository.cloneUrl, credentials);
    const head = await cache.worktree(mirror, headSha, `job-${job.id}-head`);
    worktrees.push(head);
    const runner = detectRunner(head.path, config.test.command);
    const read = await readCiEvidence({
      job,
      store: deps.store,
      status,
      ci,
      pull,
      headSha,
      runs,
      suiteId,
      runner,
      headPath: head.path,
    });
    if ("stop" in read) return await end(read.stop);

    const build: RedBuild = {
      job,
      deps,
      status,
      signal,
      forge,
      ci,
      pull,
      headSha,
      config,
      cache,
      mirror,
      head,
      runner,
      defaultBranch: repository.defaultBranch,
      hidden: { hiddenPaths: [dirname(dirname(mirror))] },
      evidence: read.evidence,
    };
    const checkouts = await prepareCheckouts(build, (tree) => worktrees.push(tree));
    if ("stop" in checkouts) return await end(checkouts.stop);
    const attributed = await attributeRedBuild(build, checkouts, read.failingInCi);
    if ("stop" in attributed) return await end(attributed.stop);
    await ensureCurrent();

    // Repair: visible = the failures this PR caused, regression = the whole suite.
    let outcome = checkpointOutcome(job.checkpoint);
    if (!outcome) {
      outcome = await repairRedBuild(build, checkouts, attributed.caused, ensureCurrent);
      await deps.store.checkpoint(job.id, { outcome });
    } else if (outcome.status === "fixed" && !job.checkpoint.pushed) {
      await applyStoredDiff(head.path, outcome.diff);
    }
    await end(await publishRepair(build, outcome, checkouts, attributed, ensureCurrent));
  } catch (error) {
    if (error instanceof HeadMoved) {
      await status
        .finish(`Stopped: ${error.message} while the job ran. Starting again on the new head if its build is red.`)
        .catch(() => undefined);
      await deps.store.finish(job.id, "cancelled", error.message);
      await deps.restart?.(job, { headSha: error.sha });
      return;
    }
    await endJobOnError(error, job, deps, status, signal);
  } finally {
    for (const w of worktrees) await w.remove().catch(() => undefined);
  }
}
