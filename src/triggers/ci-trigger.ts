// Which red builds are the bot's business. From a `workflow_run.completed` or
// `check_suite.completed` payload: a failing conclusion on a commit, not our own
// verification runs or check suites, not a GitHub Actions check suite (its workflow_run
// event carries the run), and never one of our throwaway verification branches.
import { repoOf, type PayloadRepository } from "../forge/repo-ref.ts";

export type CiFailure = {
  owner: string;
  repo: string;
  headSha: string;
  headBranch: string | null;
  /** Pull requests the payload names (same-repository only: GitHub leaves forks out). */
  pulls: number[];
  runId?: number | undefined;
  checkSuiteId?: number | undefined;
};

export type CiDecision = { act: true; failure: CiFailure } | { act: false; reason: string };

const RED = new Set(["failure", "timed_out", "startup_failure"]);
/** GitHub Actions' own app: its check suites come to us as workflow runs too. */
export const GITHUB_ACTIONS_APP_ID = 15368;

type Repo = PayloadRepository;

export type WorkflowRunPayload = {
  repository: Repo;
  workflow?: { path?: string } | null;
  workflow_run: {
    id: number;
    path?: string;
    event: string;
    conclusion: string | null;
    head_sha: string;
    head_branch: string | null;
    pull_requests?: Array<{ number: number; base?: { repo?: { id?: number } } }> | null;
    repository?: { id?: number };
  };
};

export type CheckSuitePayload = {
  repository: Repo;
  check_suite: {
    id: number;
    conclusion: string | null;
    head_sha: string;
    head_branch: string | null;
    app?: { id: number; slug?: string } | null;
    pull_requests?: Array<{ number: number }> | null;
  };
};

export function failureFromWorkflowRun(payload: WorkflowRunPayload, verifyWorkflow: string): CiDecision {
  const run = payload.workflow_run;
  if (workflowPath(payload).endsWith(`/${verifyWorkflow}`))
    return { act: false, reason: "a verification run of the bot's own" };
  if (!run.conclusion || !RED.has(run.conclusion))
    return { act: false, reason: `conclusion ${run.conclusion ?? "none"}` };
  if (run.event === "workflow_dispatch" || run.event === "schedule")
    return { act: false, reason: `event ${run.event} is not about a pull request` };
  if ((run.head_branch ?? "").startsWith("autogen/verify-"))
    return { act: false, reason: "a verification branch of the bot's own" };
  return {
    act: true,
    failure: {
      ...repoOf(payload),
      headSha: run.head_sha,
      headBranch: run.head_branch,
      pulls: (run.pull_requests ?? []).map((p) => p.number),
      runId: run.id,
    },
  };
}

/** The workflow file of a run (older payloads carry it only in `workflow`). */
export function workflowPath(payload: WorkflowRunPayload): string {
  return payload.workflow_run.path ?? payload.workflow?.path ?? "";
}

export function failureFromCheckSuite(payload: CheckSuitePayload, ourAppId: number | undefined): CiDecision {
  const suite = payload.check_suite;
  const app = suite.app?.id;
  if (app !== undefined && app === ourAppId) return { act: false, reason: "a check suite of the bot's own" };
  if (app === GITHUB_ACTIONS_APP_ID || suite.app?.slug === "github-actions")
    return { act: false, reason: "GitHub Actions: handled through its workflow_run event" };
  if (!suite.conclusion || !RED.has(suite.conclusion))
    return { act: false, reason: `conclusion ${suite.conclusion ?? "none"}` };
  if ((suite.head_branch ?? "").startsWith("autogen/verify-"))
    return { act: false, reason: "a verification branch of the bot's own" };
  return {
    act: true,
    failure: {
      ...repoOf(payload),
      headSha: suite.head_sha,
      headBranch: suite.head_branch,
      pulls: (suite.pull_requests ?? []).map((p) => p.number),
      checkSuiteId: suite.id,
    },
  };
}
