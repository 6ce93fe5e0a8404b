// One job for a red build on a pull request (a failed workflow run or check suite, or
// `/autogen fix` on the PR): collect the evidence from CI, rerun the failing tests at the
// merge base and at the head to see which the PR caused, explain (and stop) when none
// was, otherwise repair with the engine (visible = the caused failures, regression = the
// rest) and open a PR into the PR's head branch, or for a fork, comment the patch. If the
// head moves while the job runs, it stops and a new job starts on the new head.
import { isUnreviewed } from "../engine/review/review-fix.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { collectCheckSuiteEvidence, collectRunEvidence, type RunEvidence } from "../ci/run-evidence.ts";
import { chooseStrategy, taskSandbox } from "../engine/build-task.ts";
import type { Outcome } from "../engine/task.ts";
import type { CiForge, PullInfo, WorkflowRun } from "../forge/ci-forge.ts";
import type { Job } from "../jobs/job-store.ts";
import {
  explainAttribution,
  explainBrokenTests,
  explainInfra,
  evidenceDetails,
  suggestedPatch,
} from "../report/ci-explanation.ts";
import { planSummary } from "../report/plan-summary.ts";
import { renderReport } from "../report/render-report.ts";
import { attributeFailures } from "../verify/attribution.ts";
import { VERIFY_WORKFLOW } from "../ci/actions-verifier.ts";
import { brokenRunReason } from "../verify/load-failure.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import { failingTests } from "../verify/test-report.ts";
import { RepoCache, type Worktree } from "../workspace/repo-cache.ts";
import { endJobOnError, JobCancelled } from "./end-job.ts";
import { guardedLlm } from "./guarded-llm.ts";
import { beginJob } from "./job-config.ts";
import { jobVerifier } from "./job-verifier.ts";
import { applyStoredDiff, coAuthor, commitAndPush, gitTarget } from "./publish-change.ts";
import type { JobDeps } from "./job-deps.ts";
import { CI_STEPS, StatusReporter } from "./status-reporter.ts";
import { recordFailureSites } from "./check-run-reporter.ts";
import { dirname } from "node:path";
import { runSetup } from "../verify/run-setup.ts";
import { configWithInstall, installDependencies, type InstallResult } from "../verify/install/run-install.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { VerifierChoice } from "./choose-verifier.ts";
import { repairProgress } from "./job-progress.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { appInstallCache } from "../verify/install/install-cache.ts";
import { repairBranch } from "../triggers/bot-branch.ts";
import { checkpointAttribution, checkpointOutcome } from "./checkpoint-results.ts";

/** The pull request's head moved while the job ran. */
export class HeadMoved extends Error {
  readonly sha: string;
  constructor(sha: string) {
    super(`the head of the pull request moved to ${sha.slice(0, 7)}`);
    this.sha = sha;
  }
}

const RED = new Set(["failure", "timed_out", "startup_failure"]);
const isRed = (run: WorkflowRun) => run.status === "completed" && run.conclusion !== null && RED.has(run.conclusion);
/** Our own verification runs and branches are never evidence of the PR's CI. */
const isOurs = (run: WorkflowRun) =>
  run.path.endsWith(`/${VERIFY_WORKFLOW}`) || (run.headBranch ?? "").startsWith("autogen/verify-");

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
  try {
    const begun = await beginJob(forge, deps.store, status, job, deps.configOverride);
    if (!begun) return;
    const { repository } = begun;
    let config = begun.config;
    const pull = await ci.pull(owner, repo, number);
    if (pull.state !== "open") {
      await status.finish(`Nothing to do: #${number} is ${pull.state}.`);
      await deps.store.finish(job.id, "done");
      return;
    }
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
      await status.finish(
        `Nothing to repair: CI is not red on \`${headSha.slice(0, 7)}\` (no failed workflow run for the head of #${number}).`,
      );
      await deps.store.finish(job.id, "done");
      return;
    }

    const cache = new RepoCache({ root: deps.cacheRoot, signal });
    // The token clones and fetches only; the bot writes through the Git Data API (gitTarget).
    const credentials = { username: "x-access-token", password: await forge.cloneToken() };
    const mirror = await cache.mirror(repository.cloneUrl, credentials);
    const head = await cache.worktree(mirror, headSha, `job-${job.id}-head`);
    worktrees.push(head);
    const runner = detectRunner(head.path, config.test.command);
    const evidence: RunEvidence[] = [];
    for (const run of runs.slice(0, 3))
      evidence.push(
        await collectRunEvidence(ci, owner, repo, run, { parseConsole: runner.parseConsole, baseBranch: pull.baseRef }),
      );
    if (evidence.length === 0 && suiteId !== undefined)
      evidence.push(
        await collectCheckSuiteEvidence(
          ci,
          owner,
          repo,
          { id: suiteId, headSha, headBranch: pull.headRef },
          { parseConsole: runner.parseConsole },
        ),
      );
    const failingInCi = [...new Set(evidence.flatMap((e) => failingTests(e.report).map((t) => t.id)))];
    await recordFailureSites(
      deps.store,
      job,
      evidence.map((e) => e.report),
      head.path,
    );
    status.set(
      "CI evidence",
      "done",
      `${evidence.length} failed run(s), ${failingInCi.length} failing test(s) (${evidence.map((e) => e.testsFrom).join(", ")})`,
    );
    const infra = evidence.every((e) => e.infra) ? evidence[0]?.infra : undefined;
    if (infra && failingInCi.length === 0) {
      status.set("Attribution", "done", `infrastructure: ${infra.kind}`);
      await status.finish(explainInfra(infra, evidence));
      await deps.store.finish(job.id, "done");
      return;
    }

    // Failures that are test files not loading (a missing test dependency, a syntax error in a test) are the setup's, not the code's.
    const brokenInCi = evidence
      .filter((e) => e.report.tests.length > 0)
      .map((e) => brokenRunReason(e.report, head.path));
    if (brokenInCi.length > 0 && brokenInCi.every(Boolean)) {
      await stopOnBrokenTests(status, brokenInCi[0] as string, "in CI's test run", evidence);
      await deps.store.finish(job.id, "done");
      return;
    }

    // The head's dependencies, before any local run: the verifier's sandbox points at them (cached by lockfile, so the base usually reuses them).
    const hidden = { hiddenPaths: [dirname(dirname(mirror))] };
    // A fork's pull request installs into a cache of its own: its install scripts are its author's, and must not plant anything the repository's later jobs would run.
    const repositoryScope = `${String(job.installationId)}/${job.owner}/${job.repo}`;
    const installCache = {
      cacheRoot: appInstallCache(
        deps.cacheRoot,
        pull.fork ? `${repositoryScope}/fork-pull/${String(pull.number)}` : repositoryScope,
      ),
    };
    const install = await installDependencies(
      head.path,
      config.test,
      { ...taskSandbox(config, signal), ...hidden },
      installCache,
    );
    config = configWithInstall(config, install);
    const choice = await jobVerifier(
      deps,
      job,
      status,
      config,
      {
        ci,
        defaultBranch: repository.defaultBranch,
        mirror,
        target: await gitTarget(forge, job, deps.botIdentity),
        runner,
        fork: pull.fork,
      },
      signal,
    );

    // Attribution: the failing tests at the merge base and at the head, with reruns.
    status.set("Attribution", "running");
    const mergeBase = (
      await cache.run(mirror, ["merge-base", "--end-of-options", pull.baseSha, headSha], "find the merge base")
    ).trim();
    const base = await cache.worktree(mirror, mergeBase, `job-${job.id}-base`);
    worktrees.push(base);
    // The repository's setup (for example `npm ci`) in both checkouts, before any local run
    // (attribution, and the coverage runs that stay local even when Actions verifies).
    {
      const baseInstall = await installDependencies(
        base.path,
        begun.config.test,
        { ...taskSandbox(begun.config, signal), ...hidden },
        { cacheRoot: appInstallCache(deps.cacheRoot, repositoryScope) },
      );
      if (baseInstall.ran && !baseInstall.ok)
        status.set(
          "Attribution",
          "running",
          `the merge base's dependencies did not install: ${baseInstall.message.slice(0, 300)}`,
        );
      for (const tree of [head, base]) {
        const setup = await runSetup(tree.path, config.test, { ...taskSandbox(config, signal), ...hidden });
        if (setup.ran && !setup.ok) {
          status.set("Attribution", "failed", "the setup command failed");
          await status.finish(
            `autogen-bot could not prepare the checkout at \`${tree.sha.slice(0, 7)}\`: ${setup.message}`,
          );
          await deps.store.finish(job.id, "failed", setup.message);
          return;
        }
      }
    }
    let failing = failingInCi;
    if (failing.length === 0) {
      // No per-test results in CI: find the failures by running the suite at the head.
      const atHead = await choice.verifier.run(head.path, { kind: "all" });
      const broken = brokenRunReason(atHead, head.path);
      if (broken) {
        await stopOnBrokenTests(status, broken, `the suite run at the head here, ${choice.why}`, evidence);
        await deps.store.finish(job.id, "done");
        return;
      }
      failing = failingTests(atHead).map((t) => t.id);
    }
    if (failing.length === 0) {
      status.set("Attribution", "failed", "no failing test reproduced");
      await status.finish(
        `The failing CI job did not fail in tests autogen-bot could run (${choice.why}), so it made no change.\n\n<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`,
      );
      await deps.store.finish(job.id, "done");
      return;
    }
    // A job resumed after a restart keeps the attribution it already paid for.
    const attribution =
      checkpointAttribution(job.checkpoint) ??
      (await attributeFailures(
        choice.verifier,
        { base: base.path, candidate: head.path },
        { kind: "tests", ids: failing },
        config.test.reruns,
        { parallel: choice.backend === "actions" },
      ));
    await deps.store.checkpoint(job.id, { attribution });
    if (!attribution.tests.some((t) => failing.includes(t.id))) {
      // The ids CI reported are not tests the verifier here can select (another runner, renamed tests).
      status.set("Attribution", "failed", "the failing tests could not be run");
      await status.finish(
        `The tests that failed in CI (${failing
          .slice(0, 10)
          .map((id) => `\`${id}\``)
          .join(
            ", ",
          )}) could not be run by ${choice.why} at the merge base or the head, so autogen-bot cannot tell whether this pull request caused them, and made no change. Setting \`test.command\` in \`.github/autogen.yml\` to the command CI runs may help.\n\n<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`,
      );
      await deps.store.finish(job.id, "done");
      return;
    }
    const caused = attribution.tests.filter((t) => t.verdict === "caused-by-change").map((t) => t.id);
    const c = attribution.counts;
    status.set(
      "Attribution",
      "done",
      `${c["caused-by-change"]} caused by the change, ${c["pre-existing"]} pre-existing, ${c.flaky} flaky, ${c.passing + c.fixed} not reproduced`,
    );
    if (caused.length === 0) {
      await status.finish(
        explainAttribution(attribution, { base: mergeBase, head: headSha, verifier: choice.why }, evidence),
      );
      await deps.store.finish(job.id, "done");
      return;
    }
    await ensureCurrent();

    // Repair: visible = the failures this PR caused, regression = the whole suite.
    let outcome = checkpointOutcome(job.checkpoint);
    if (!outcome) {
      outcome = await repairWithPipeline(job, deps, {
        pull,
        caused,
        mergeBase,
        evidence,
        head,
        config: begun.config,
        runner,
        choice,
        install,
        hidden,
        status,
        ensureCurrent,
        signal,
      });
      await deps.store.checkpoint(job.id, { outcome });
    } else if (outcome.status === "fixed" && !job.checkpoint.pushed) {
      await applyStoredDiff(head.path, outcome.diff);
    }
    if (job.checkpoint.planOnly === true) {
      status.set(
        "Plan",
        outcome.plan.verified ? "done" : "failed",
        `${outcome.plan.verified ? "verified" : "not verified"} on ${outcome.plan.verification?.length ?? 0} test(s)`,
      );
      await status.finish(planSummary(outcome));
      await deps.store.finish(job.id, "done");
      return;
    }
    status.set(
      "Attempts",
      outcome.status === "fixed" ? "done" : "failed",
      `${outcome.attempts.length} attempt(s), verified in ${choice.why}`,
    );
    if (outcome.status !== "fixed") {
      status.set("Pull request", "skipped", "no fix found");
      await status.finish(
        `Stopped without a fix (\`${outcome.stopReason}\`): ${outcome.message}.\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: pull.title })}\n</details>`,
      );
      await deps.store.finish(job.id, outcome.stopReason === "error" ? "failed" : "done", outcome.message);
      return;
    }
    const after = outcome.evidence.regressionAfter;
    status.set("Regression gate", "done", after ? `${after.passed} passed, ${after.failed} failed` : undefined);
    await ensureCurrent();

    if (pull.fork) {
      status.set("Pull request", "skipped", "fork: patch in this comment");
      await status.finish(
        `${suggestedPatch(outcome.diff, { ref: pull.headRef, sha: headSha })}\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: pull.title })}\n</details>`,
      );
      await deps.store.finish(job.id, "done");
      return;
    }
    const branch = repairBranch(number, headSha);
    if (!job.checkpoint.pushed) {
      const message = [
        `Fix the tests #${number} broke: ${caused.join(", ")}`.slice(0, 72),
        "",
        `${outcome.message}.`,
        "",
        coAuthor(job),
      ].join("\n");
      const sha = await commitAndPush(
        head,
        mirror,
        await gitTarget(forge, job, deps.botIdentity),
        branch,
        message,
        outcome.changedFiles,
      );
      await deps.store.checkpoint(job.id, { pushed: sha });
    }
    status.set("Pull request", "running");
    const title = `autogen: fix CI of #${number} (${pull.title})`.slice(0, 250);
    const leftAlone = attribution.tests
      .filter((t) => t.verdict === "pre-existing" || t.verdict === "flaky")
      .map((t) => `- \`${t.id}\`: ${t.verdict} (base ${t.base.join(", ")}; head ${t.candidate.join(", ")})`);
    const body = [
      `Repairs the red build of #${number} at \`${headSha.slice(0, 7)}\`: ${caused.length} test(s) the change broke pass again (attribution at the merge base \`${mergeBase.slice(0, 7)}\`). Merge this into \`${pull.headRef}\`.`,
      leftAlone.length ? `\nNot repaired, because the pull request did not cause them:\n${leftAlone.join("\n")}` : "",
      `\n${renderReport(outcome, { title, branch })}`,
    ].join("\n");
    let pr = await forge.findOpenPull(owner, repo, branch);
    if (pr) await forge.updatePull(owner, repo, pr.number, { title, body });
    else
      pr = await forge.createPull(owner, repo, {
        title,
        head: branch,
        base: pull.headRef,
        body,
        draft: config.pullRequest.draft === "always" || isUnreviewed(outcome),
      });
    await deps.store.checkpoint(job.id, { pull: pr.number });
    status.set("Pull request", "done", `#${pr.number}`);
    await status.finish(`Opened ${pr.url} into \`${pull.headRef}\`: ${outcome.message}.`);
    await deps.store.finish(job.id, "done");
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

/** The failed runs of the head commit; runs still in progress are waited for (polling, within the job's minutes). */
async function redRuns(
  ci: CiForge,
  job: Job,
  pull: PullInfo,
  config: RepoConfig,
  deps: JobDeps,
  signal: AbortSignal,
): Promise<WorkflowRun[]> {
  const runId = job.checkpoint.runId;
  const deadline = Date.now() + config.budgets.minutes * 60_000;
  let wait = deps.pollMs ?? 10_000;
  for (;;) {
    const all =
      runId !== undefined && job.checkpoint.headSha === pull.headSha
        ? [await ci.workflowRun(job.owner, job.repo, runId)]
        : (await ci.workflowRuns(job.owner, job.repo, { headSha: pull.headSha })).filter(
            (r) => !isOurs(r) && r.event !== "workflow_dispatch",
          );
    const red = all.filter(isRed);
    const pending = all.filter((r) => r.status !== "completed");
    if (red.length > 0 || pending.length === 0 || Date.now() > deadline) return red;
    if (signal.aborted) throw new JobCancelled("stopped on request");
    await deps.waiters.sleep(pending[0]?.id, wait, signal);
    wait = Math.min(wait * 2, 60_000);
  }
}

/** A test run judged broken is attributed to infrastructure, with the reason, and never planned against. */
async function stopOnBrokenTests(
  status: StatusReporter,
  reason: string,
  where: string,
  evidence: RunEvidence[],
): Promise<void> {
  status.set("Attribution", "done", "infrastructure: the test command is broken");
  await status.finish(explainBrokenTests(reason, where, evidence));
}

type Repair = {
  pull: PullInfo;
  caused: string[];
  mergeBase: string;
  evidence: RunEvidence[];
  head: Worktree;
  /** The repository's config before the install's variables (the pipeline adds them). */
  config: RepoConfig;
  runner: TestRunner;
  choice: VerifierChoice;
  install: InstallResult;
  hidden: { hiddenPaths: string[] };
  status: StatusReporter;
  ensureCurrent: () => Promise<void>;
  signal: AbortSignal;
};

/** The repair is the job pipeline: the head is installed and set up, the verifier chosen, the visible tests are the caused failures. */
async function repairWithPipeline(job: Job, deps: JobDeps, r: Repair): Promise<Outcome> {
  const { pull, caused, choice, config, signal } = r;
  const description = [
    `The pull request #${job.number} "${pull.title}" broke these tests (they pass at the merge base ${r.mergeBase.slice(0, 7)}): ${caused.join(", ")}.`,
    "Change the code so they pass again, keeping what the pull request set out to do.",
    pull.body ? `The pull request's description:\n${pull.body}` : "",
    `What CI showed:\n${r.evidence.map((e) => e.digest).join("\n\n")}`,
    job.hint ? `Hint from ${job.requester}: ${job.hint}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const scope = { installation: String(job.installationId), repository: `${job.owner}/${job.repo}` };
  const result = await runJobPipeline(
    {
      workspace: r.head.path,
      config,
      trigger: { kind: "failing-tests", description, tests: caused },
      runner: r.runner,
      sandboxFor: (c) => ({ ...taskSandbox(c, signal), ...r.hidden }),
      // Installed and set up before the attribution, in both checkouts.
      setup: false,
      baseline: false,
      signal,
    },
    {
      install: async () => r.install,
      verifier: async () => ({
        verifier: choice.verifier,
        probe: choice.probe,
        parallelism: choice.backend === "actions" ? 4 : 1,
      }),
      llm: () => guardedLlm(deps.llmFor?.(configWithInstall(config, r.install), job, signal), r.ensureCurrent),
      recall: () => deps.memory?.recall(scope, description) ?? [],
      strategy: ({ llm, memory }) => {
        try {
          return chooseStrategy({ config, llm, memory, planOnly: job.checkpoint.planOnly === true });
        } catch (error) {
          throw new JobCancelled((error as Error).message);
        }
      },
      progress: repairProgress(job, deps, r.status),
    },
  );
  return result.outcome;
}
