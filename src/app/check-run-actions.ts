// The buttons on the `autogen` check run (`check_run.requested_action`). Only check runs
// this App made count (its app id, the name `autogen`, a job id as external id that
// belongs to this repository, to the installation the click came through and to this
// very check run); the clicker passes the same gate as a comment command (write access,
// never a bot). `retry` queues the job's kind again through the same gate and queue as a
// command (the delivery id recorded); `apply` opens the pull request with a fork's patch
// (see apply-fork-fix.ts).
import type { Context, Probot } from "probot";
import { octokitCiForge } from "../forge/octokit-ci-forge.ts";
import { octokitForge } from "../forge/forge.ts";
import { repoOf, type PayloadRepository } from "../forge/repo-ref.ts";
import type { Job, Store } from "../jobs/store.ts";
import type { Scrubber } from "../secrets/scrub-secrets.ts";
import { gate } from "../triggers/gate.ts";
import type { BotIdentity } from "../forge/bot-identity.ts";
import { applyForkFix } from "./apply-fork-fix.ts";
import type { Trigger } from "./ci-triggers.ts";
import { checkRunRecord, type CheckRunReporter } from "./check-run-reporter.ts";
import { CHECK_RUN_NAME } from "../forge/check-run-forge.ts";

export type CheckRunActionTools = {
  store: Store;
  appId: number | undefined;
  scrub: Scrubber;
  cacheRoot: string;
  /** The App's bot user, the author of the commit `Apply fix` publishes. */
  botIdentity: (installationId: number) => Promise<BotIdentity>;
  checkRuns: CheckRunReporter;
  firstDelivery: (context: Context) => Promise<boolean>;
  gateAndEnqueue: (context: Context, trigger: Trigger) => Promise<void>;
};

type RequestedAction = {
  check_run: { id: number; name: string; external_id?: string | null; head_sha: string; app?: { id: number } | null };
  requested_action?: { identifier: string };
  repository: PayloadRepository;
  installation?: { id: number };
  sender: { login: string; id: number; type: string };
};

/** What a retry carries over from the job it repeats: what was asked, not what was done. */
const REQUEST_KEYS = ["planOnly", "branch", "issue", "refs"] as const;

export function registerCheckRunActions(app: Probot, tools: CheckRunActionTools): void {
  app.on("check_run.requested_action", async (context) => {
    if (!(await tools.firstDelivery(context))) return;
    const payload = context.payload as unknown as RequestedAction;
    const { owner, repo } = context.repo();
    const identifier = payload.requested_action?.identifier;
    const meta = {
      deliveryId: context.id,
      owner,
      repo,
      checkRun: payload.check_run.id,
      action: identifier,
      sender: payload.sender.login,
    };
    const job = await ourJob(tools, payload);
    if (!job) {
      app.log.info(meta, "requested action ignored: not a check run of this App's jobs");
      return;
    }
    const forge = octokitForge(context.octokit, tools.scrub);
    if (identifier === "retry") {
      const request = Object.fromEntries(
        REQUEST_KEYS.filter((k) => job.checkpoint[k] !== undefined).map((k) => [k, job.checkpoint[k]]),
      );
      // Review feedback works on the PR's branch again; an issue's fix starts from the default branch as it is now.
      if (job.checkpoint.branch !== undefined) request.base = job.checkpoint.branch;
      const snapshot = job.kind === "ci" ? job.snapshot : await forge.issue(owner, repo, job.number);
      await tools.gateAndEnqueue(context, {
        installationId: payload.installation?.id,
        sender: payload.sender,
        owner,
        repo,
        number: job.number,
        kind: job.kind,
        snapshot,
        hint: job.hint,
        checkpoint: request,
      });
      return;
    }
    if (identifier !== "apply") {
      app.log.info(meta, "requested action ignored: unknown action");
      return;
    }
    const verdict = await gate(forge, { owner, repo, actor: payload.sender });
    if (!verdict.allowed) {
      app.log.info({ ...meta, reason: verdict.reason }, "requested action refused by the gate");
      return;
    }
    const ci = octokitCiForge(context.octokit.request);
    const result = await applyForkFix(job, payload.sender.login, {
      store: tools.store,
      forge,
      ci,
      cacheRoot: tools.cacheRoot,
      botIdentity: tools.botIdentity,
    });
    if (result.kind === "refused") {
      app.log.info({ ...meta, reason: result.reason }, "apply fix refused");
      return;
    }
    if (result.kind === "already") {
      app.log.info({ ...meta, pull: result.applied.pull }, "apply fix: the pull request exists already");
      return;
    }
    app.log.info({ ...meta, pull: result.applied.pull }, "apply fix: pull request opened");
    await forge
      .createComment(
        owner,
        repo,
        job.number,
        `${payload.sender.login} applied autogen's fix: ${result.applied.url} holds this pull request's commits plus the fix.`,
      )
      .catch((error: unknown) =>
        app.log.warn({ ...meta, err: (error as Error).message }, "apply fix: comment not posted"),
      );
    await tools.checkRuns.complete(job.id, {
      again: true,
      note: `**Applied** by ${payload.sender.login}: ${result.applied.url}`,
    });
  });
}

/** The job behind a check run this App created in this repository, or undefined. */
async function ourJob(tools: CheckRunActionTools, payload: RequestedAction): Promise<Job | undefined> {
  const run = payload.check_run;
  if (tools.appId === undefined || run.app?.id !== tools.appId || run.name !== CHECK_RUN_NAME) return undefined;
  if (!/^\d{1,12}$/.test(run.external_id ?? "")) return undefined;
  const job = await tools.store.get(Number(run.external_id));
  // The job must be this repository's, under the installation the click came through (whose token would do the work).
  const { owner, repo } = repoOf(payload);
  if (!job || job.owner !== owner || job.repo !== repo || job.installationId !== payload.installation?.id)
    return undefined;
  const record = checkRunRecord(job);
  return record?.id === run.id && record.sha === run.head_sha ? job : undefined;
}
