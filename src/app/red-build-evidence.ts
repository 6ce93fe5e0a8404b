// The red build's evidence from CI: the failed runs of the pull request's head (waiting for
// runs still in progress), their logs and test reports read with the repository's runner,
// and the stops when CI's failure is not the code's (infrastructure, tests that do not load).
import { VERIFY_WORKFLOW } from "../ci/actions-verifier.ts";
import { collectCheckSuiteEvidence, collectRunEvidence, type RunEvidence } from "../ci/run-evidence.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { CiForge, PullInfo, WorkflowRun } from "../forge/ci-forge.ts";
import type { Job } from "../jobs/store.ts";
import { explainBrokenTests, explainInfra } from "../report/ci-explanation.ts";
import { brokenRunReason } from "../verify/load-failure.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import { failingTests } from "../verify/test-report.ts";
import { recordFailureSites } from "./check-run-reporter.ts";
import { JobCancelled } from "./end-job.ts";
import type { JobDeps } from "./job-deps.ts";
import type { JobStop, Stopped } from "./red-build.ts";
import type { StatusReporter } from "./status-reporter.ts";

const RED = new Set(["failure", "timed_out", "startup_failure"]);
const isRed = (run: WorkflowRun) => run.status === "completed" && run.conclusion !== null && RED.has(run.conclusion);
/** Our own verification runs and branches are never evidence of the PR's CI. */
const isOurs = (run: WorkflowRun) =>
  run.path.endsWith(`/${VERIFY_WORKFLOW}`) || (run.headBranch ?? "").startsWith("autogen/verify-");

/** The failed runs of the head commit; runs still in progress are waited for (polling, within the job's minutes). */
export async function redRuns(
  ci: CiForge,
  job: Job,
  pull: PullInfo,
  config: RepoConfig,
  deps: Pick<JobDeps, "pollMs" | "waiters">,
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

export type CiRead = {
  job: Job;
  store: JobDeps["store"];
  status: StatusReporter;
  ci: CiForge;
  pull: PullInfo;
  headSha: string;
  runs: WorkflowRun[];
  /** The check suite named by the trigger, read when no workflow run is red. */
  suiteId: number | undefined;
  runner: TestRunner;
  headPath: string;
};

/** The logs and test reports of (at most three of) the red runs, and the failing tests they name. */
export async function readCiEvidence(
  read: CiRead,
): Promise<Stopped | { evidence: RunEvidence[]; failingInCi: string[] }> {
  const { job, ci, pull, runner, status } = read;
  const { owner, repo } = job;
  const evidence: RunEvidence[] = [];
  for (const run of read.runs.slice(0, 3))
    evidence.push(
      await collectRunEvidence(ci, owner, repo, run, { parseConsole: runner.parseConsole, baseBranch: pull.baseRef }),
    );
  if (evidence.length === 0 && read.suiteId !== undefined)
    evidence.push(
      await collectCheckSuiteEvidence(
        ci,
        owner,
        repo,
        { id: read.suiteId, headSha: read.headSha, headBranch: pull.headRef },
        { parseConsole: runner.parseConsole },
      ),
    );
  const failingInCi = [...new Set(evidence.flatMap((e) => failingTests(e.report).map((t) => t.id)))];
  await recordFailureSites(
    read.store,
    job,
    evidence.map((e) => e.report),
    read.headPath,
  );
  status.set(
    "CI evidence",
    "done",
    `${evidence.length} failed run(s), ${failingInCi.length} failing test(s) (${evidence.map((e) => e.testsFrom).join(", ")})`,
  );
  const infra = evidence.every((e) => e.infra) ? evidence[0]?.infra : undefined;
  if (infra && failingInCi.length === 0) {
    status.set("Attribution", "done", `infrastructure: ${infra.kind}`);
    return { stop: { message: explainInfra(infra, evidence), state: "done" } };
  }
  // Failures that are test files not loading (a missing test dependency, a syntax error in a test) are the setup's, not the code's.
  const brokenInCi = evidence
    .filter((e) => e.report.tests.length > 0)
    .map((e) => brokenRunReason(e.report, read.headPath));
  if (brokenInCi.length > 0 && brokenInCi.every(Boolean))
    return { stop: brokenTestsStop(status, brokenInCi[0] as string, "in CI's test run", evidence) };
  return { evidence, failingInCi };
}

/** A test run judged broken is attributed to infrastructure, with the reason, and never planned against. */
export function brokenTestsStop(
  status: StatusReporter,
  reason: string,
  where: string,
  evidence: RunEvidence[],
): JobStop {
  status.set("Attribution", "done", "infrastructure: the test command is broken");
  return { message: explainBrokenTests(reason, where, evidence), state: "done" };
}
