// Which red builds start work: the decision on real payload shapes (@octokit/webhooks-examples).
import { describe, expect, it } from "vitest";
import {
  failureFromCheckSuite,
  failureFromWorkflowRun,
  GITHUB_ACTIONS_APP_ID,
  type CheckSuitePayload,
  type WorkflowRunPayload,
} from "../../src/triggers/ci-trigger.ts";
import { webhookExample } from "../support/webhook-examples.ts";

function workflowRun(patch: Record<string, unknown>, workflowPath = ".github/workflows/ci.yml"): WorkflowRunPayload {
  const payload = webhookExample("workflow_run", "completed") as unknown as WorkflowRunPayload & {
    workflow: { path?: string };
  };
  payload.workflow = { ...payload.workflow, path: workflowPath };
  payload.workflow_run = {
    ...payload.workflow_run,
    event: "pull_request",
    conclusion: "failure",
    head_branch: "feature/x",
    head_sha: "a".repeat(40),
    pull_requests: [{ number: 7 }],
    ...patch,
  };
  return payload;
}

function checkSuite(patch: Record<string, unknown>): CheckSuitePayload {
  const payload = webhookExample("check_suite", "completed") as unknown as CheckSuitePayload;
  payload.check_suite = {
    ...payload.check_suite,
    conclusion: "failure",
    head_branch: "feature/x",
    head_sha: "b".repeat(40),
    pull_requests: [{ number: 8 }],
    ...patch,
  };
  return payload;
}

describe("red builds that start work", () => {
  it("a failed pull-request run names its commit, run and pull requests", () => {
    const decision = failureFromWorkflowRun(workflowRun({ id: 30433642 }), "autogen-verify.yml");
    expect(decision).toEqual({
      act: true,
      failure: expect.objectContaining({
        headSha: "a".repeat(40),
        runId: 30433642,
        pulls: [7],
        headBranch: "feature/x",
      }),
    });
  });

  it("timed out and startup failures count as red; success, cancelled and skipped do not", () => {
    for (const conclusion of ["timed_out", "startup_failure"])
      expect(failureFromWorkflowRun(workflowRun({ conclusion }), "autogen-verify.yml").act).toBe(true);
    for (const conclusion of ["success", "cancelled", "skipped", "neutral", null])
      expect(failureFromWorkflowRun(workflowRun({ conclusion }), "autogen-verify.yml").act).toBe(false);
  });

  it("ignores the bot's own verification runs and branches, and runs not about a pull request", () => {
    expect(
      failureFromWorkflowRun(workflowRun({}, ".github/workflows/autogen-verify.yml"), "autogen-verify.yml"),
    ).toEqual({ act: false, reason: "a verification run of the bot's own" });
    expect(
      failureFromWorkflowRun(workflowRun({ head_branch: "autogen/verify-job-3-1" }), "autogen-verify.yml").act,
    ).toBe(false);
    expect(failureFromWorkflowRun(workflowRun({ event: "workflow_dispatch" }), "autogen-verify.yml").act).toBe(false);
    expect(failureFromWorkflowRun(workflowRun({ event: "schedule" }), "autogen-verify.yml").act).toBe(false);
  });

  it("a fork's run has no pull requests in the payload (they are looked up by commit later)", () => {
    const decision = failureFromWorkflowRun(workflowRun({ pull_requests: [] }), "autogen-verify.yml");
    expect(decision.act && decision.failure.pulls).toEqual([]);
  });

  it("check suites: another CI app's red suite counts; ours and GitHub Actions' do not", () => {
    expect(failureFromCheckSuite(checkSuite({ app: { id: 4242, slug: "circleci-checks" } }), 1)).toEqual({
      act: true,
      failure: expect.objectContaining({ checkSuiteId: expect.any(Number), pulls: [8] }),
    });
    expect(failureFromCheckSuite(checkSuite({ app: { id: 1, slug: "autogen-bot" } }), 1)).toEqual({
      act: false,
      reason: "a check suite of the bot's own",
    });
    expect(
      failureFromCheckSuite(checkSuite({ app: { id: GITHUB_ACTIONS_APP_ID, slug: "github-actions" } }), 1).act,
    ).toBe(false);
    expect(failureFromCheckSuite(checkSuite({ app: { id: 4242 }, conclusion: "success" }), 1).act).toBe(false);
  });
});
