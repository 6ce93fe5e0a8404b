// The Probot app: handlers that decide and enqueue (under `autogen-bot serve` they run from
// the inbox, after the webhook was acknowledged, and are retried when GitHub fails; a
// delivery id is recorded so a redelivery does nothing), a worker pool that runs the
// jobs, and resume of interrupted jobs at start.
import type { ApplicationFunction, Context, Probot } from "probot";
import { REPO_CONFIG_PATH, RepoConfigError } from "../config/parse-repo-config.ts";
import { readRepoConfigFromForge } from "../forge/read-repo-config-forge.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import { octokitCiForge } from "../forge/octokit-ci-forge.ts";
import { octokitForge, type Forge } from "../forge/forge.ts";
import { appBotIdentity, cachedIdentity, type BotIdentity } from "../forge/bot-identity.ts";
import type { JobCheckpoint } from "../jobs/job-checkpoint.ts";
import type { Job, JobKind, Store } from "../jobs/store.ts";
import { WorkerPool } from "../jobs/worker-pool.ts";
import type { MemoryPool } from "../engine/memory/memory-pool.ts";
import type { Scrubber } from "../secrets/scrub-secrets.ts";
import { parseBotBranch } from "../triggers/bot-branch.ts";
import { gate } from "../triggers/gate.ts";
import { RunWaiters } from "../verify/run-waiters.ts";
import { parseCommand } from "../triggers/parse-command.ts";
import { registerCiTriggers, type Trigger } from "./ci-triggers.ts";
import { runCiJob } from "./run-ci-job.ts";
import { runIssueJob } from "./run-issue-job.ts";
import type { JobDeps } from "./job-deps.ts";
import { DEFAULT_JOB_RETRY, runJobWithRetries, type JobRetryPolicy } from "./job-retry.ts";
import { CheckRunReporter } from "./check-run-reporter.ts";
import { registerCheckRunActions } from "./check-run-actions.ts";
import { octokitCheckRunForge } from "../forge/check-run-forge.ts";
import { checkpointAttribution, checkpointOutcome } from "./checkpoint-results.ts";

export type AppDeps = {
  store: Store;
  cacheRoot: string;
  scrub: Scrubber;
  concurrency: number;
  perInstallation: number;
  llmFor?: JobDeps["llmFor"];
  statusThrottleMs?: number;
  /** Memory of accepted fixes (merged bot PRs), per installation and repository. */
  memory?: MemoryPool | undefined;
  /** This App's id: its own check suites are never a trigger. */
  appId?: number | undefined;
  /** Wakes verifiers waiting on Actions runs (created when not given). */
  waiters?: RunWaiters | undefined;
  /** How often to poll GitHub for Actions runs (tests shorten it). */
  pollMs?: number | undefined;
  /** Limit for one Actions verification run (tests shorten it). */
  actionsTimeoutMs?: number | undefined;
  /** Runs of a job whose GitHub calls fail (tests shorten the backoff). */
  jobRetry?: JobRetryPolicy | undefined;
  /** Applied to the repository's config wherever it is read (the GitHub Action's inputs; it forces the local verifier). */
  configOverride?: ((config: RepoConfig) => RepoConfig) | undefined;
  /** Who the bot's commits are by (default: the App's bot user, asked from GitHub; the action passes its token's bot). */
  botIdentity?: ((installationId: number) => Promise<BotIdentity>) | undefined;
  /** Set by the app once loaded: the pool, for tests and the health endpoint. */
  onReady?: (pool: WorkerPool) => void;
};

type IssuePayload = {
  installation?: { id: number };
  repository: { name: string; owner: { login: string }; default_branch: string };
  issue: { number: number; title: string; body?: string | null; pull_request?: unknown };
  sender: { login: string; id: number; type: string };
};

export function createAutogenApp(deps: AppDeps): ApplicationFunction {
  return async (app: Probot) => {
    const forgeFor = async (installationId: number): Promise<Forge> =>
      octokitForge(await app.auth(installationId), deps.scrub);
    const ciFor = async (installationId: number): Promise<CiForge> =>
      octokitCiForge((await app.auth(installationId)).request);
    const waiters = deps.waiters ?? new RunWaiters();
    // Each job's `autogen` check run: started when the job knows its commit, completed when it ends.
    const checkRuns = new CheckRunReporter({
      store: deps.store,
      checksFor: async (id) => octokitCheckRunForge(await app.auth(id), deps.scrub),
      log: app.log,
    });
    /** A follow-up job for a pull request whose head moved: once per head commit. */
    const restart = async (job: Job, checkpoint: JobCheckpoint) => {
      if (
        !(await deps.store.recordDelivery(
          `ci:${job.owner}/${job.repo}#${job.number}@${String(checkpoint.headSha)}`,
          "ci-restart",
        ))
      )
        return;
      const {
        id: _id,
        state: _state,
        statusCommentId: _comment,
        error: _error,
        checkpoint: _old,
        deliveryId,
        ...request
      } = job;
      await deps.store.enqueue({ ...request, deliveryId: `${deliveryId}:restart:${job.id}`, checkpoint });
      pool.kick();
    };
    // The App's bot user, asked once per process: GET /app needs the App's JWT (app.auth() without an installation), GET /users an installation's token.
    const botIdentity =
      deps.botIdentity ??
      cachedIdentity(async (installationId: number) =>
        appBotIdentity(await app.auth(), await app.auth(installationId)),
      );
    const jobDeps: JobDeps = {
      store: deps.store,
      forgeFor,
      botIdentity,
      ciFor,
      waiters,
      pollMs: deps.pollMs,
      actionsTimeoutMs: deps.actionsTimeoutMs,
      restart,
      checkRunStarted: (job, sha) => checkRuns.begin(job, sha),
      jobRetry: deps.jobRetry,
      configOverride: deps.configOverride,
      cacheRoot: deps.cacheRoot,
      llmFor: deps.llmFor,
      statusThrottleMs: deps.statusThrottleMs,
      log: app.log,
      memory: deps.memory,
    };
    // Every line a job logs carries its job and delivery ids (a child logger per job).
    const depsOf = (job: Job): JobDeps => ({
      ...jobDeps,
      log: app.log.child({ jobId: job.id, deliveryId: job.deliveryId }),
    });
    const runJob = (job: Job, signal: AbortSignal) =>
      job.kind === "ci" ? runCiJob(job, depsOf(job), signal) : runIssueJob(job, depsOf(job), signal);
    const pool = new WorkerPool(
      deps.store,
      async (job, signal) => {
        await runJobWithRetries(
          deps.store,
          job,
          signal,
          runJob,
          deps.jobRetry ?? DEFAULT_JOB_RETRY,
          app.log.child({ jobId: job.id, deliveryId: job.deliveryId }),
        );
        // However the job ended (a job left running by a shutdown is skipped: it resumes later).
        await checkRuns.complete(job.id);
      },
      { concurrency: deps.concurrency, perInstallation: deps.perInstallation },
    );
    const resumed = await deps.store.requeueInterrupted();
    if (resumed > 0) app.log.info({ resumed }, "interrupted jobs requeued");
    pool.kick();
    deps.onReady?.(pool);

    const firstDelivery = (context: Context) => deps.store.recordDelivery(context.id, context.name);
    const overridden = (config: RepoConfig) => deps.configOverride?.(config) ?? config;

    /** The gate, then one queued job (or the note that one is already active). */
    const gateAndEnqueue = async (context: Context, trigger: Trigger) => {
      const { installationId, sender, ...request } = trigger;
      if (!installationId) return;
      const forge = octokitForge(context.octokit, deps.scrub);
      const verdict = await gate(forge, { owner: request.owner, repo: request.repo, actor: sender });
      if (!verdict.allowed) {
        app.log.info(
          {
            deliveryId: context.id,
            owner: request.owner,
            repo: request.repo,
            number: request.number,
            reason: verdict.reason,
          },
          "trigger refused by the gate",
        );
        return;
      }
      const queued = await deps.store.enqueue({
        ...request,
        deliveryId: context.id,
        installationId,
        requester: sender.login,
        requesterId: sender.id,
      });
      if (!queued.queued) {
        app.log.info({ deliveryId: context.id, activeJob: queued.active.id }, "an active job exists for this issue");
        return;
      }
      // No write here: GitHub's secondary rate limit spaces writes a second apart, and the
      // acknowledgement must not wait for that. The worker reacts when it starts the job.
      pool.kick();
    };

    const start = async (
      context: Context<"issues.labeled" | "issue_comment.created">,
      kind: JobKind,
      hint?: string,
      checkpoint?: JobCheckpoint,
    ) => {
      const payload = context.payload as unknown as IssuePayload;
      const { owner, repo } = context.repo();
      await gateAndEnqueue(context, {
        installationId: payload.installation?.id,
        sender: payload.sender,
        owner,
        repo,
        number: payload.issue.number,
        kind,
        snapshot: { title: payload.issue.title, body: payload.issue.body ?? "" },
        hint,
        checkpoint,
      });
    };

    app.on("issues.labeled", async (context) => {
      if (!(await firstDelivery(context))) return;
      const payload = context.payload;
      const forge = octokitForge(context.octokit, deps.scrub);
      const { owner, repo } = context.repo();
      let config: RepoConfig;
      try {
        config = overridden(await readRepoConfigFromForge(forge, owner, repo, payload.repository.default_branch));
      } catch (error) {
        if (!(error instanceof RepoConfigError)) throw error;
        // Only the default label can be meant; only someone allowed to start work hears about it.
        if (payload.label?.name !== "autogen" || !(await gate(forge, { owner, repo, actor: payload.sender })).allowed)
          return;
        await forge.createComment(
          owner,
          repo,
          payload.issue.number,
          `autogen-bot did not start: \`${REPO_CONFIG_PATH}\` is invalid.\n\n${error.problems.map((p) => `- ${p}`).join("\n")}`,
        );
        return;
      }
      if (!config.triggers.issues || payload.label?.name !== config.label) return;
      await start(context, "fix");
    });

    app.on("issue_comment.created", async (context) => {
      if (!(await firstDelivery(context))) return;
      const command = parseCommand(context.payload.comment.body);
      if (!command) return;
      const payload = context.payload;
      if (command.kind === "stop") {
        const forge = octokitForge(context.octokit, deps.scrub);
        const { owner, repo } = context.repo();
        const verdict = await gate(forge, { owner, repo, actor: payload.sender });
        const active = await deps.store.active(owner, repo, payload.issue.number);
        if (!verdict.allowed || !active) return;
        if (!pool.abort(active.id, `stopped by ${payload.sender.login}`))
          await deps.store.finish(active.id, "cancelled", `stopped by ${payload.sender.login}`);
        return;
      }
      if (payload.issue.pull_request) {
        // On a pull request, `/autogen fix|retry` repairs its red build (the command is the consent); `plan` plans that repair.
        const { owner, repo } = context.repo();
        const config = await repoConfig(context, owner, repo, payload.repository.default_branch);
        if (!config || config.triggers.ciFailure === "off") return;
        await start(
          context,
          "ci",
          command.kind === "retry" ? command.hint : undefined,
          command.kind === "plan" ? { planOnly: true } : undefined,
        );
        return;
      }
      await start(
        context,
        command.kind === "plan" ? "plan" : "fix",
        command.kind === "retry" ? command.hint : undefined,
      );
    });

    /** The repository's config from its default branch, or undefined when it is invalid (the job reports that). */
    const repoConfig = async (
      context: Context,
      owner: string,
      repo: string,
      branch: string,
    ): Promise<RepoConfig | undefined> => {
      const forge = octokitForge(context.octokit, deps.scrub);
      try {
        return overridden(await readRepoConfigFromForge(forge, owner, repo, branch));
      } catch (error) {
        if (error instanceof RepoConfigError) return undefined;
        throw error;
      }
    };

    registerCiTriggers(app, {
      store: deps.store,
      waiters,
      appId: deps.appId,
      firstDelivery,
      repoConfig,
      gateAndEnqueue,
    });
    registerCheckRunActions(app, {
      store: deps.store,
      appId: deps.appId,
      scrub: deps.scrub,
      cacheRoot: deps.cacheRoot,
      botIdentity,
      checkRuns,
      firstDelivery,
      gateAndEnqueue,
    });

    // Reviews on the bot's own PRs are feedback for another iteration on that PR.
    const onReview = async (
      context: Context<"pull_request_review.submitted" | "pull_request_review_comment.created">,
      text: string,
    ) => {
      if (!(await firstDelivery(context))) return;
      const payload = context.payload;
      const pull = payload.pull_request;
      const bot = parseBotBranch(pull.head.ref);
      if (!bot || !text.trim() || pull.head.repo?.full_name !== payload.repository.full_name) return;
      const { owner, repo } = context.repo();
      await gateAndEnqueue(context, {
        installationId: (payload as { installation?: { id: number } }).installation?.id,
        sender: payload.sender,
        owner,
        repo,
        number: pull.number,
        kind: "fix",
        snapshot: { title: pull.title, body: pull.body ?? "" },
        hint: `Review feedback on this pull request:\n${text}`,
        // A red build's repair only refers to the pull request it repairs (that one is not closed by it).
        checkpoint: {
          base: pull.head.ref,
          branch: pull.head.ref,
          issue: bot.number,
          ...(bot.kind === "fix" ? { refs: true } : {}),
        },
      });
    };
    app.on("pull_request_review.submitted", async (context) => {
      const review = context.payload.review;
      if (review.state === "approved") return;
      await onReview(context, review.body ?? "");
    });
    app.on("pull_request_review_comment.created", async (context) => {
      const c = context.payload.comment;
      await onReview(context, `${c.path}${c.line ? `:${c.line}` : ""}: ${c.body}\n\n${c.diff_hunk}`);
    });

    // A merged bot PR is an accepted fix: its plan goes into this repository's memory.
    app.on("pull_request.closed", async (context) => {
      if (!(await firstDelivery(context))) return;
      const { pull_request: pull, repository } = context.payload;
      const bot = parseBotBranch(pull.head.ref);
      const installation = (context.payload as { installation?: { id: number } }).installation?.id;
      if (!pull.merged || !bot || !deps.memory || !installation) return;
      const { owner, repo } = context.repo();
      const job = await deps.store.latest(owner, repo, bot.number);
      const outcome = job && checkpointOutcome(job.checkpoint);
      if (!job || !outcome || outcome.status !== "fixed") return;
      const broken = (checkpointAttribution(job.checkpoint)?.tests ?? [])
        .filter((t) => t.verdict === "caused-by-change")
        .map((t) => t.id);
      deps.memory.remember(
        { installation: String(installation), repository: repository.full_name },
        {
          task:
            job.kind === "ci"
              ? `A pull request broke tests: ${broken.join(", ")}\n${outcome.message}`
              : `${job.snapshot.title}\n${job.snapshot.body}`,
          plan:
            outcome.plan.steps ??
            (outcome.plan.fix ? [`${outcome.plan.fix.family}: ${outcome.plan.fix.description}`] : []),
          verification: (outcome.plan.verification ?? [])
            .map((v) => `${v.test}: ${v.derived} (expected ${v.expected})`)
            .join("\n"),
          keywords: outcome.changedFiles.flatMap((f) => f.split(/[/.]/)).filter((w) => w.length > 2),
        },
      );
      app.log.info({ deliveryId: context.id, job: job.id }, "merged fix remembered");
    });

    app.on("issues.edited", async (context) => {
      if (!(await firstDelivery(context))) return;
      const payload = context.payload;
      const { owner, repo } = context.repo();
      const active = await deps.store.active(owner, repo, payload.issue.number);
      if (!active) return;
      if (active.snapshot.title !== payload.issue.title || active.snapshot.body !== (payload.issue.body ?? "")) {
        if (!pool.abort(active.id, "the issue was edited after the job started"))
          await deps.store.finish(active.id, "cancelled", "the issue was edited before the job started");
      }
    });

    app.onError(async (error) => {
      app.log.error({ err: error, event: error.event?.name }, "webhook handler failed");
    });
  };
}
