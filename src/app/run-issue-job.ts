// One job from a labelled issue (or `/autogen fix|plan|retry`): read the config from the
// default branch, clone, find the failing tests (or reproduce), run the engine, push the
// fix to autogen/issue-<n> with the installation token, open or update the PR, and keep
// the status comment current. Checkpoints let a restarted job resume where it stopped.
import { isUnreviewed } from "../engine/review/review-fix.ts";
import { dirname } from "node:path";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { buildTask, chooseStrategy, chooseVisible, taskSandbox, type Trigger } from "../engine/build-task.ts";
import { formatMemory, type MemoryPool } from "../engine/memory/memory-pool.ts";
import { emptyOutcome, evidenceOf, type Outcome } from "../engine/task.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import type { Forge } from "../forge/forge.ts";
import type { RunWaiters } from "../verify/run-waiters.ts";
import type { Job, Store } from "../jobs/store.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import { renderReport } from "../report/render-report.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import { failingTests } from "../verify/test-report.ts";
import type { BotIdentity } from "../forge/bot-identity.ts";
import type { GitTarget } from "../forge/publish-commit.ts";
import { RepoCache, type Worktree } from "../workspace/repo-cache.ts";
import { applyStoredDiff, commitAndPush, gitTarget, issueCommitMessage } from "./publish-change.ts";
import { endJobOnError, JobCancelled } from "./end-job.ts";
import type { JobRetryPolicy } from "./job-retry.ts";
import { planSummary } from "../report/plan-summary.ts";
import { guardedLlm } from "./guarded-llm.ts";
import { beginJob } from "./job-config.ts";
import { jobVerifier } from "./job-verifier.ts";
import { StatusReporter } from "./status-reporter.ts";
import { recordFailureSites } from "./check-run-reporter.ts";
import { missingDependencies, runSetup } from "../verify/run-setup.ts";
import { configWithInstall, installDependencies, type InstallResult } from "../verify/install/run-install.ts";
import { appInstallCache } from "../verify/install/install-cache.ts";
import { issueBranch } from "../triggers/bot-branch.ts";
import { postChecks } from "../pipeline/post-checks.ts";

export type JobDeps = {
  store: Store;
  forgeFor: (installationId: number) => Promise<Forge>;
  /** Who the bot's commits are by (the App's `<slug>[bot]`, looked up once per process). */
  botIdentity: (installationId: number) => Promise<BotIdentity>;
  cacheRoot: string;
  /** A model client for this job (its own budget), or undefined to run model-free. */
  llmFor?: ((config: RepoConfig, job: Job, signal: AbortSignal) => LlmClient | undefined) | undefined;
  statusThrottleMs?: number;
  memory?: MemoryPool | undefined;
  /** Reads CI and dispatches verification runs for an installation. */
  ciFor: (installationId: number) => Promise<CiForge>;
  /** Wakes verifiers waiting on an Actions run when its webhook arrives. */
  waiters: RunWaiters;
  /** How often to poll GitHub for runs (tests shorten it). */
  pollMs?: number | undefined;
  /** Limit for one Actions verification run (default: the repository's test timeout plus 10 minutes). */
  actionsTimeoutMs?: number | undefined;
  /** Queues a follow-up job (a red build whose head moved: again on the new head). */
  restart?: ((job: Job, checkpoint: Record<string, unknown>) => Promise<void>) | undefined;
  /** Runs of a job whose GitHub calls fail (default: 5, from 30 s apart). */
  jobRetry?: JobRetryPolicy | undefined;
  log: { info: (meta: object, msg: string) => void; warn: (meta: object, msg: string) => void };
  /** The job knows the commit it concerns: its `autogen` check run starts there (never throws). */
  checkRunStarted?: ((job: Job, sha: string) => Promise<void>) | undefined;
  /** Applied to the repository's config when a job reads it (the GitHub Action's inputs). */
  configOverride?: ((config: RepoConfig) => RepoConfig) | undefined;
};


export async function runIssueJob(job: Job, deps: JobDeps, signal: AbortSignal): Promise<void> {
  const forge = await deps.forgeFor(job.installationId);
  const status = new StatusReporter(forge, deps.store, job, deps.statusThrottleMs);
  const { owner, repo, number } = job;
  let worktree: Worktree | undefined;
  const ensureCurrent = async () => {
    if (signal.aborted) throw new JobCancelled(String((signal.reason as Error | undefined)?.message ?? "stopped on request"));
    const now = await forge.issue(owner, repo, number);
    if (now.title !== job.snapshot.title || now.body !== job.snapshot.body) throw new JobCancelled("the issue was edited after the job started; label it again (or comment `/autogen retry`) to work on the new text");
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
    let outcome = job.checkpoint.outcome as Outcome | undefined;
    const base = (job.checkpoint.base as string | undefined) ?? repository.defaultBranch;
    worktree = await cache.worktree(mirror, base, `job-${job.id}`);
    if (!outcome) {
      outcome = await runEngine(job, config, worktree, mirror, { repository, target: await gitTarget(forge, job, deps.botIdentity) }, deps, status, ensureCurrent, signal);
      await deps.store.checkpoint(job.id, { outcome, base: worktree.sha });
    } else if (outcome.status === "fixed" && !job.checkpoint.pushed) {
      // Resumed after a restart: the change is in the checkpoint, not in a worktree.
      await applyStoredDiff(worktree.path, outcome.diff);
    }

    const draftOfAttempt = job.kind !== "plan" && outcome.status !== "fixed" && config.pullRequest.onGiveUp === "draft-pr" && outcome.closestAttempt !== undefined;
    if (draftOfAttempt && outcome.closestAttempt && !job.checkpoint.pushed) await applyStoredDiff(worktree.path, outcome.closestAttempt.diff);
    if (job.kind === "plan" || (outcome.status !== "fixed" && !draftOfAttempt)) {
      const summary = job.kind === "plan" ? planSummary(outcome) : `Stopped without a fix (\`${outcome.stopReason}\`): ${outcome.message}.`;
      if (outcome.status !== "fixed" && config.pullRequest.onGiveUp === "comment") status.set("Pull request", "skipped", "no fix found");
      await status.finish(`${summary}\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: job.snapshot.title })}\n</details>`);
      await deps.store.finish(job.id, outcome.stopReason === "error" ? "failed" : "done", outcome.status === "fixed" ? undefined : outcome.message);
      return;
    }

    // Review feedback works on the PR's own branch; an issue gets autogen/issue-<n>.
    const branch = (job.checkpoint.branch as string | undefined) ?? issueBranch(number);
    const closes = (job.checkpoint.issue as number | undefined) ?? number;
    if (!job.checkpoint.pushed) {
      await ensureCurrent();
      const files = outcome.status === "fixed" ? outcome.changedFiles : (outcome.closestAttempt?.files ?? []);
      const sha = await commitAndPush(worktree, mirror, await gitTarget(forge, job, deps.botIdentity), branch, issueCommitMessage(job, outcome), files);
      await deps.store.checkpoint(job.id, { pushed: sha });
      await deps.checkRunStarted?.(job, sha);
    }
    status.set("Pull request", "running");
    const draft = draftOfAttempt || config.pullRequest.draft === "always" || !(outcome.evidence.after && outcome.evidence.after.failed === 0) || isUnreviewed(outcome);
    const attemptNote = draftOfAttempt && outcome.closestAttempt
      ? `> **Draft: no fix was found.** This branch holds the closest attempt (${outcome.closestAttempt.passed} visible test(s) passing, ${outcome.closestAttempt.failed} failing); it does not pass the tests. Stopped: ${outcome.message}.\n\n`
      : "";
    const repairNote = job.checkpoint.refs === true ? `Repairs the red build of #${closes}; updated after review.\n\n` : "";
    const body = `${attemptNote}${repairNote}${renderReport(outcome, { title: `autogen: ${job.snapshot.title}`, branch })}\n${draftOfAttempt || job.checkpoint.refs === true ? "Refs" : "Closes"} #${closes}\n`;
    const title = (job.checkpoint.branch ? job.snapshot.title : `autogen: ${job.snapshot.title}`).slice(0, 250);
    let pull = await forge.findOpenPull(owner, repo, branch);
    const existed = pull !== undefined;
    if (pull) await forge.updatePull(owner, repo, pull.number, { title, body });
    else pull = await forge.createPull(owner, repo, { title, head: branch, base: repository.defaultBranch, body, draft });
    await deps.store.checkpoint(job.id, { pull: pull.number });
    status.set("Pull request", draftOfAttempt ? "failed" : "done", `#${pull.number}${draft ? " (draft)" : ""}`);
    await status.finish(draftOfAttempt ? `No fix found; the closest attempt is in the draft ${pull.url}: ${outcome.message}.` : `${existed ? "Updated" : "Opened"} ${pull.url}: ${outcome.message}.`);
    await deps.store.finish(job.id, "done");
  } catch (error) {
    await endJobOnError(error, job, deps, status, signal);
  } finally {
    await worktree?.remove().catch(() => undefined);
  }
}

type EngineContext = { repository: { defaultBranch: string; cloneUrl: string }; target: GitTarget };

async function runEngine(job: Job, repoConfig: RepoConfig, worktree: Worktree, mirror: string, context: EngineContext, deps: JobDeps, status: StatusReporter, ensureCurrent: () => Promise<void>, signal: AbortSignal): Promise<Outcome> {
  status.set("Tests and localisation", "running");
  // The dependencies first (from the install cache when an earlier job installed the same lockfile): the verifier's sandbox points at them.
  // Like the tests, the install (the repository's own install scripts) does not see the other jobs' worktrees in the repository cache.
  const install = await installDependencies(worktree.path, repoConfig.test, { ...taskSandbox(repoConfig, signal), hiddenPaths: [dirname(dirname(mirror))] }, { cacheRoot: appInstallCache(deps.cacheRoot, `${String(job.installationId)}/${job.owner}/${job.repo}`) });
  if (install.ran) status.set("Tests and localisation", "running", install.ok ? install.message : `continuing without dependencies: ${install.message}`);
  const outcome = await runEngineSteps(job, configWithInstall(repoConfig, install), install, worktree, mirror, context, deps, status, ensureCurrent, signal);
  outcome.dependencies = install.ran ? install.summary : undefined;
  return outcome;
}

async function runEngineSteps(job: Job, config: RepoConfig, install: InstallResult, worktree: Worktree, mirror: string, { repository, target }: EngineContext, deps: JobDeps, status: StatusReporter, ensureCurrent: () => Promise<void>, signal: AbortSignal): Promise<Outcome> {
  const runner = detectRunner(worktree.path, config.test.command);
  // Every run of this job (setup, coverage, the tests) is kept from the other jobs' worktrees in the repository cache.
  const sandbox = { ...taskSandbox(config, signal), hiddenPaths: [dirname(dirname(mirror))] };
  const ci = await deps.ciFor(job.installationId);
  const choice = await jobVerifier(deps, job, status, config, { ci, defaultBranch: repository.defaultBranch, mirror, target, runner, fork: false }, signal);
  const verifier = choice.verifier;
  const setup = await runSetup(worktree.path, config.test, sandbox);
  if (setup.ran && !setup.ok) {
    status.set("Tests and localisation", "failed", setup.message);
    const stopped = emptyOutcome(config.strategy.name);
    Object.assign(stopped, { stopReason: "broken-tests", message: setup.message });
    return stopped;
  }
  const baseline = await verifier.run(worktree.path, { kind: "all" });
  const failing = failingTests(baseline);
  await recordFailureSites(deps.store, job, [baseline], worktree.path);
  status.set("Tests and localisation", "done", `${runner.name}: ${baseline.tests.length - failing.length} passed, ${failing.length} failed on ${worktree.sha.slice(0, 7)}`);
  const base = deps.llmFor?.(config, job, signal);
  // Every model call first checks that the issue is still what was asked for.
  const llm = guardedLlm(base, ensureCurrent);
  const description = [job.snapshot.title, job.snapshot.body, job.hint ? `Hint from ${job.requester}: ${job.hint}` : ""].filter(Boolean).join("\n\n");
  const trigger: Trigger = { kind: "issue", text: description };
  const tests = chooseVisible(trigger, baseline, worktree.path, { canReproduce: llm !== undefined });
  if (tests.kind !== "ok") {
    // Nothing the engine could work on: say so before any model call.
    status.set("Tests and localisation", "failed", tests.message);
    const stopped = emptyOutcome(llm ? config.strategy.name : "template");
    const hint = tests.kind === "broken" ? (install.ran && !install.ok ? install.message : missingDependencies(worktree.path, config.test)) : undefined;
    Object.assign(stopped, { stopReason: tests.kind === "broken" ? "broken-tests" : "nothing-to-fix", message: hint ? `${tests.message}; likely cause: ${hint}` : tests.message });
    stopped.evidence.before = evidenceOf(baseline);
    return stopped;
  }
  const description0 = `${job.snapshot.title}\n${job.snapshot.body}`;
  const memory = formatMemory(deps.memory?.recall({ installation: String(job.installationId), repository: `${job.owner}/${job.repo}` }, description0) ?? []);
  let strategy;
  try {
    strategy = chooseStrategy({ config, llm, memory, planOnly: job.kind === "plan" });
  } catch (error) {
    throw new JobCancelled((error as Error).message);
  }
  status.set("Plan", "running");
  const outcome = await strategy.run(
    buildTask({
      workspace: worktree.path,
      trigger,
      config,
      runner,
      verifier,
      probe: choice.probe,
      visible: tests.visible,
      sandbox,
      signal,
      onProgress: (event) => {
        // The job's record follows the engine (an interrupted engine run restarts from its beginning).
        void deps.store.checkpoint(job.id, event.kind === "stage" ? { stage: event.stage } : { stage: "attempt", attempt: event.index }).catch((error: unknown) => deps.log.warn({ jobId: job.id, err: (error as Error).message }, "checkpoint not saved"));
        if (event.kind === "stage") status.set("Plan", "done", event.stage === "plan" ? "written" : `${event.stage}${event.detail ? ` (${event.detail})` : ""}`);
        else status.set("Attempts", "running", `attempt ${event.index}: ${event.passed} passed, ${event.failed} failed`);
      },
    }),
  );
  if (outcome.plan.steps) status.set("Plan", outcome.plan.verified ? "done" : "failed", `${outcome.plan.verified ? "verified" : "not verified"} on ${outcome.plan.verification?.length ?? 0} test(s)`);
  status.set("Attempts", outcome.status === "fixed" ? "done" : "failed", `${outcome.attempts.length} attempt(s)`);
  if (outcome.status === "fixed") {
    await postChecks(worktree.path, outcome, config);
    const after = outcome.evidence.regressionAfter;
    status.set("Regression gate", outcome.status === "fixed" ? "done" : "failed", after ? `${after.passed} passed, ${after.failed} failed` : undefined);
  }
  return outcome;
}
