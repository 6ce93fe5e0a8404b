// The App's red-build triggers: a failed workflow run or another CI app's failed check
// suite on a pull request's head becomes a `ci` job, automatically only when the
// repository asks for it (`triggers.ciFailure: auto`); fork pull requests are found by
// their commit; the bot's own branches get a limited number of repair rounds; our own
// verification runs only wake the verifier waiting on them.
import type { Context, Probot } from "probot";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { octokitCiForge } from "../forge/octokit-ci-forge.ts";
import type { JobRequest, Store } from "../jobs/store.ts";
import {
  failureFromCheckSuite,
  failureFromWorkflowRun,
  workflowPath,
  type CheckSuitePayload,
  type CiFailure,
  type WorkflowRunPayload,
} from "../triggers/ci-trigger.ts";
import { VERIFY_WORKFLOW } from "../ci/actions-verifier.ts";
import type { RunWaiters } from "../verify/run-waiters.ts";

export type Sender = { login: string; id: number; type: string };
/** What a handler asks for: a job, before the gate and the queue add who and which delivery. */
export type Trigger = Omit<JobRequest, "deliveryId" | "installationId" | "requester" | "requesterId"> & {
  installationId: number | undefined;
  sender: Sender;
};

export type TriggerTools = {
  store: Store;
  waiters: RunWaiters;
  appId: number | undefined;
  firstDelivery: (context: Context) => Promise<boolean>;
  repoConfig: (context: Context, owner: string, repo: string, branch: string) => Promise<RepoConfig | undefined>;
  gateAndEnqueue: (context: Context, trigger: Trigger) => Promise<void>;
};

type Delivered = { repository: { default_branch: string }; installation?: { id: number }; sender: Sender };

export function registerCiTriggers(app: Probot, tools: TriggerTools): void {
  // A red build: automatic only when the repository asks for it (`triggers.ciFailure: auto`).
  const onRedBuild = async (
    context: Context,
    failure: CiFailure,
    defaultBranch: string,
    sender: Sender,
    installationId: number | undefined,
  ) => {
    const config = await tools.repoConfig(context, failure.owner, failure.repo, defaultBranch);
    if (!config || config.triggers.ciFailure !== "auto") {
      app.log.info(
        {
          deliveryId: context.id,
          owner: failure.owner,
          repo: failure.repo,
          mode: config?.triggers.ciFailure ?? "invalid config",
        },
        "red build not repaired automatically",
      );
      return;
    }
    const ci = octokitCiForge(context.octokit.request);
    // Fork pull requests are missing from the payload: ask which open PRs have this head.
    const pulls =
      failure.pulls.length > 0 ? failure.pulls : await ci.pullsForCommit(failure.owner, failure.repo, failure.headSha);
    for (const number of pulls.slice(0, 3)) {
      if (
        (failure.headBranch ?? "").startsWith("autogen/") &&
        (await tools.store.countJobs(failure.owner, failure.repo, number, "ci")) >=
          config.triggers.repairRoundsOnBotBranches
      ) {
        app.log.info(
          { deliveryId: context.id, number, rounds: config.triggers.repairRoundsOnBotBranches },
          "repair rounds on the bot's own branch used up",
        );
        continue;
      }
      // One job per pull request and head commit, whichever event says it first.
      // Claimed for this delivery: a retry of it after a GitHub error, or after a crash, claims it again.
      if (
        !(await tools.store.claimForDelivery(
          `ci:${failure.owner}/${failure.repo}#${number}@${failure.headSha}`,
          context.id,
        ))
      )
        continue;
      await tools.gateAndEnqueue(context, {
        installationId,
        sender,
        owner: failure.owner,
        repo: failure.repo,
        number,
        kind: "ci",
        snapshot: { title: `Red build on #${number}`, body: "" },
        checkpoint: {
          headSha: failure.headSha,
          ...(failure.runId ? { runId: failure.runId } : {}),
          ...(failure.checkSuiteId ? { checkSuiteId: failure.checkSuiteId } : {}),
        },
      });
    }
  };

  app.on("workflow_run.completed", async (context) => {
    const payload = context.payload as unknown as WorkflowRunPayload & Delivered;
    // Our verification runs wake the verifier waiting on them (a redelivery too: harmless).
    if (workflowPath(payload).endsWith(`/${VERIFY_WORKFLOW}`)) tools.waiters.notify(payload.workflow_run.id);
    if (!(await tools.firstDelivery(context))) return;
    const decision = failureFromWorkflowRun(payload, VERIFY_WORKFLOW);
    if (!decision.act) return;
    await onRedBuild(
      context,
      decision.failure,
      payload.repository.default_branch,
      payload.sender,
      payload.installation?.id,
    );
  });

  app.on("check_suite.completed", async (context) => {
    if (!(await tools.firstDelivery(context))) return;
    const payload = context.payload as unknown as CheckSuitePayload & Delivered;
    const decision = failureFromCheckSuite(payload, tools.appId);
    if (!decision.act) return;
    await onRedBuild(
      context,
      decision.failure,
      payload.repository.default_branch,
      payload.sender,
      payload.installation?.id,
    );
  });
}
