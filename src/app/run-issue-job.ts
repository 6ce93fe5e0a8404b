// One job from a labelled issue (or `/autogen fix|plan|retry`): read the config from the
// default branch, clone, find the failing tests (or reproduce), run the engine, push the
// fix to autogen/issue-<n> with the installation token, open or update the PR, and keep
// the status comment current. Checkpoints let a restarted job resume where it stopped.
import { isUnreviewed } from "../engine/review/review-fix.ts";
import { dirname } from "node:path";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { chooseStrategy, taskSandbox } from "../engine/build-task.ts";
import type { Outcome } from "../engine/task.ts";
import type { Job } from "../jobs/store.ts";
import { renderReport } from "../report/render-report.ts";
import type { GitTarget } from "../forge/publish-commit.ts";
import { RepoCache, type Worktree } from "../workspace/repo-cache.ts";
import { applyStoredDiff, commitAndPush, gitTarget, issueCommitMessage } from "./publish-change.ts";
import { endJobOnError, JobCancelled } from "./end-job.ts";
import { planSummary } from "../report/plan-summary.ts";
import { guardedLlm } from "./guarded-llm.ts";
import type { JobDeps } from "./job-deps.ts";
import { beginJob } from "./job-config.ts";
import { issueJobProgress } from "./job-progress.ts";
import { jobVerifier } from "./job-verifier.ts";
import { StatusReporter } from "./status-reporter.ts";
import { installDependencies } from "../verify/install/run-install.ts";
import { appInstallCache } from "../verify/install/install-cache.ts";
import { issueBranch } from "../triggers/bot-branch.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { checkpointOutcome } from "./checkpoint-results.ts";

export async function runIssueJob(job: Job, deps: JobDeps, signal: AbortSignal): Promise<void> {
  const forge = await deps.forgeFor(job.installationId);
  const status = new StatusReporter(forge, deps.store, job, deps.statusThrottleMs);
  const { owner, repo, number } = job;
  let worktree: Worktree | undefined;
  const ensureCurrent = async () => {
    if (signal.aborted)
      throw new JobCancelled(String((signal.reason as Error | undefined)?.message ?? "stopped on request"));
    const now = await forge.issue(owner, repo, number);
    if (now.title !== job.snapshot.title || now.body !== job.snapshot.body)
      throw new JobCancelled(
        "the issue was edited after the job started; label it again (or comment `/autogen retry`) to work on the new text",
      );
  };
  try {
    const begun = await beginJob(forge, deps.store, status, job, deps.configOverride);
    if (!begun) return;
    const { repository, config } = begun;
    status.set("Configuration", "done", `strategy ${config.strategy.name}, tests ${config.test.command ?? "detected"}`);
    await ensureCurrent();

    const cache = new RepoCache({ root: deps.cacheRoot, signal });
    // The token clones and fetches only; the bot writes through the Git Data API (gitTarget).
    const credentials = { username: "x-access-token", password: await forge.cloneToken() };
    const mirror = await cache.mirror(repository.cloneUrl, credentials);
    let outcome = checkpointOutcome(job.checkpoint);
    const base = job.checkpoint.base ?? repository.defaultBranch;
    worktree = await cache.worktree(mirror, base, `job-${job.id}`);
    if (!outcome) {
      outcome = await runEngine(
        job,
        config,
        worktree,
        mirror,
        { repository, target: await gitTarget(forge, job, deps.botIdentity) },
        deps,
        status,
        ensureCurrent,
        signal,
      );
      await deps.store.checkpoint(job.id, { outcome, base: worktree.sha });
    } else if (outcome.status === "fixed" && !job.checkpoint.pushed) {
      // Resumed after a restart: the change is in the checkpoint, not in a worktree.
      await applyStoredDiff(worktree.path, outcome.diff);
    }

    const draftOfAttempt =
      job.kind !== "plan" &&
      outcome.status !== "fixed" &&
      config.pullRequest.onGiveUp === "draft-pr" &&
      outcome.closestAttempt !== undefined;
    if (draftOfAttempt && outcome.closestAttempt && !job.checkpoint.pushed)
      await applyStoredDiff(worktree.path, outcome.closestAttempt.diff);
    if (job.kind === "plan" || (outcome.status !== "fixed" && !draftOfAttempt)) {
      const summary =
        job.kind === "plan"
          ? planSummary(outcome)
          : `Stopped without a fix (\`${outcome.stopReason}\`): ${outcome.message}.`;
      if (outcome.status !== "fixed" && config.pullRequest.onGiveUp === "comment")
        status.set("Pull request", "skipped", "no fix found");
      await status.finish(
        `${summary}\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: job.snapshot.title })}\n</details>`,
      );
      await deps.store.finish(
        job.id,
        outcome.stopReason === "error" ? "failed" : "done",
        outcome.status === "fixed" ? undefined : outcome.message,
      );
      return;
    }

    // Review feedback works on the PR's own branch; an issue gets autogen/issue-<n>.
    const branch = job.checkpoint.branch ?? issueBranch(number);
    const closes = job.checkpoint.issue ?? number;
    if (!job.checkpoint.pushed) {
      await ensureCurrent();
      const files = outcome.status === "fixed" ? outcome.changedFiles : (outcome.closestAttempt?.files ?? []);
      const sha = await commitAndPush(
        worktree,
        mirror,
        await gitTarget(forge, job, deps.botIdentity),
        branch,
        issueCommitMessage(job, outcome),
        files,
      );
      await deps.store.checkpoint(job.id, { pushed: sha });
      await deps.checkRunStarted?.(job, sha);
    }
    status.set("Pull request", "running");
    const draft =
      draftOfAttempt ||
      config.pullRequest.draft === "always" ||
      !(outcome.evidence.after && outcome.evidence.after.failed === 0) ||
      isUnreviewed(outcome);
    const attemptNote =
      draftOfAttempt && outcome.closestAttempt
        ? `> **Draft: no fix was found.** This branch holds the closest attempt (${outcome.closestAttempt.passed} visible test(s) passing, ${outcome.closestAttempt.failed} failing); it does not pass the tests. Stopped: ${outcome.message}.\n\n`
        : "";
    const repairNote =
      job.checkpoint.refs === true ? `Repairs the red build of #${closes}; updated after review.\n\n` : "";
    const body = `${attemptNote}${repairNote}${renderReport(outcome, { title: `autogen: ${job.snapshot.title}`, branch })}\n${draftOfAttempt || job.checkpoint.refs === true ? "Refs" : "Closes"} #${closes}\n`;
    const title = (job.checkpoint.branch ? job.snapshot.title : `autogen: ${job.snapshot.title}`).slice(0, 250);
    let pull = await forge.findOpenPull(owner, repo, branch);
    const existed = pull !== undefined;
    if (pull) await forge.updatePull(owner, repo, pull.number, { title, body });
    else
      pull = await forge.createPull(owner, repo, { title, head: branch, base: repository.defaultBranch, body, draft });
    await deps.store.checkpoint(job.id, { pull: pull.number });
    status.set("Pull request", draftOfAttempt ? "failed" : "done", `#${pull.number}${draft ? " (draft)" : ""}`);
    await status.finish(
      draftOfAttempt
        ? `No fix found; the closest attempt is in the draft ${pull.url}: ${outcome.message}.`
        : `${existed ? "Updated" : "Opened"} ${pull.url}: ${outcome.message}.`,
    );
    await deps.store.finish(job.id, "done");
  } catch (error) {
    await endJobOnError(error, job, deps, status, signal);
  } finally {
    await worktree?.remove().catch(() => undefined);
  }
}

type EngineContext = { repository: { defaultBranch: string; cloneUrl: string }; target: GitTarget };

/** The job pipeline with the App's ports: the repository cache's worktree, the job's verifier, the status comment. */
async function runEngine(
  job: Job,
  repoConfig: RepoConfig,
  worktree: Worktree,
  mirror: string,
  { repository, target }: EngineContext,
  deps: JobDeps,
  status: StatusReporter,
  ensureCurrent: () => Promise<void>,
  signal: AbortSignal,
): Promise<Outcome> {
  status.set("Tests and localisation", "running");
  // Every run of this job (its install scripts, setup, coverage, the tests) is kept from the
  // other jobs' worktrees in the repository cache.
  const hidden = { hiddenPaths: [dirname(dirname(mirror))] };
  const { title, body } = job.snapshot;
  const hint = job.hint ? `Hint from ${job.requester}: ${job.hint}` : "";
  const description = [title, body, hint].filter(Boolean).join("\n\n");
  const scope = { installation: String(job.installationId), repository: `${job.owner}/${job.repo}` };
  const where = { defaultBranch: repository.defaultBranch, mirror, target, fork: false };
  const result = await runJobPipeline(
    {
      workspace: worktree.path,
      config: repoConfig,
      trigger: { kind: "issue", text: description },
      sandboxFor: (config) => ({ ...taskSandbox(config, signal), ...hidden }),
      signal,
    },
    {
      // From the install cache when an earlier job installed the same lockfile.
      install: (config, sandbox) =>
        installDependencies(worktree.path, config.test, sandbox, {
          cacheRoot: appInstallCache(deps.cacheRoot, `${String(job.installationId)}/${job.owner}/${job.repo}`),
        }),
      verifier: async (runner, config) =>
        jobVerifier(deps, job, status, config, { ...where, ci: await deps.ciFor(job.installationId), runner }, signal),
      // Every model call first checks that the issue is still what was asked for.
      llm: () => guardedLlm(deps.llmFor?.(repoConfig, job, signal), ensureCurrent),
      recall: () => deps.memory?.recall(scope, `${title}\n${body}`) ?? [],
      strategy: ({ llm, memory }) => {
        try {
          return chooseStrategy({ config: repoConfig, llm, memory, planOnly: job.kind === "plan" });
        } catch (error) {
          throw new JobCancelled((error as Error).message);
        }
      },
      progress: issueJobProgress(job, deps, status, worktree),
    },
  );
  if (result.stop?.stage === "runner") throw result.stop.error;
  if (result.stop?.stage === "visible") status.set("Tests and localisation", "failed", result.stop.message);
  return result.outcome;
}
