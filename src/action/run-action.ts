// The GitHub Action: the App itself (createAutogenApp, its gate, config, status comment,
// PR, attribution and fork patch comment), run once for the workflow's event with the
// workflow's token instead of App credentials (Probot's `githubToken` mode), a job
// store in the runner's temp directory, and the runner itself as the verifier. When the
// job is done, its report goes to the step summary, its failures and changed lines
// become annotations, and `outcome`, `pr-url` and `branch` become step outputs.
import { randomUUID } from "node:crypto";
import { mkdir, readFile } from "node:fs/promises";
import { delimiter, dirname, isAbsolute, join } from "node:path";
import { Probot, ProbotOctokit } from "probot";
import { createAutogenApp } from "../app/create-app.ts";
import { dropSecretsFromEnvironment } from "../secrets/drop-secrets.ts";
import { ACTIONS_BOT, botIdentity, cachedIdentity, type BotIdentity } from "../forge/bot-identity.ts";
import { JobStore } from "../jobs/job-store.ts";
import type { Job } from "../jobs/store.ts";
import type { WorkerPool } from "../jobs/worker-pool.ts";
import { jobLlmClient, processScrubber } from "../llm/job-llm-client.ts";
import type { JobDeps } from "../app/job-deps.ts";
import { pricesFromEnv } from "../config/prices.ts";
import { renderReport } from "../report/render-report.ts";
import { secretScrubber, type Scrubber } from "../secrets/scrub-secrets.ts";
import { ActionInputError, applyActionInputs, readActionInputs, type ActionInputs } from "./action-inputs.ts";
import { jobAnnotations } from "./job-annotations.ts";
import { workflowChannels, type WorkflowChannels } from "./workflow-commands.ts";
import { issueBranch, repairBranch } from "../triggers/bot-branch.ts";
import { checkpointOutcome } from "../app/checkpoint-results.ts";
import { writeSpacedOctokit, writeSpacingFromEnv } from "../forge/write-spacing.ts";

/** The events the App handles; anything else is a workflow mistake worth saying. */
const EVENTS = new Set([
  "issues",
  "issue_comment",
  "pull_request_review",
  "pull_request_review_comment",
  "workflow_run",
]);
/**
 * Payloads from Actions carry no `installation` (there is no App installation): the
 * App's handlers want one for the per-installation queue and memory keys, and in token
 * mode Probot authenticates every installation with the same token, so one fixed id
 * stands for "this workflow's token".
 */
export const TOKEN_INSTALLATION_ID = 1;

export type ActionResult = { exitCode: number };

export async function runAction(
  env: NodeJS.ProcessEnv = process.env,
  write: (line: string) => void = (line) => process.stdout.write(line),
): Promise<ActionResult> {
  let inputs: ActionInputs;
  try {
    inputs = readActionInputs(env);
  } catch (error) {
    if (!(error instanceof ActionInputError)) throw error;
    const scrub = secretScrubber([env["INPUT_GITHUB-TOKEN"], env["INPUT_LLM-API-KEY"]]);
    workflowChannels(env, scrub, write).annotate({ level: "error", message: error.message });
    return { exitCode: 1 };
  }
  // From here on no child process can inherit the token or the key (the tests, git, installs),
  // and no test run can read the runner's own files.
  dropSecretsFromEnvironment(env);
  env.AUTOGEN_SANDBOX_HIDE = [env.AUTOGEN_SANDBOX_HIDE, ...runnerPaths(env)].filter(Boolean).join(delimiter);
  const scrub = actionScrubber(env, inputs);
  const channels = workflowChannels(env, scrub, write);
  try {
    return await runEvent(env, inputs, scrub, channels);
  } catch (error) {
    channels.annotate({ level: "error", message: `autogen-bot failed: ${(error as Error).message}` });
    return { exitCode: 1 };
  }
}

/**
 * What the runner keeps outside /home on a self-hosted runner (whose `_work` can be anywhere),
 * hidden from test runs as the bot's own secrets are: the workflow's checkout (actions/checkout
 * leaves the token in its `.git/config`), the runner's temp directory (where this action's job
 * store is) and the files of the step's commands (outputs, environment, summary, the event).
 */
export function runnerPaths(env: NodeJS.ProcessEnv): string[] {
  const dirs = ["GITHUB_WORKSPACE", "RUNNER_WORKSPACE", "RUNNER_TEMP"].map((name) => env[name]);
  const files = [
    "GITHUB_EVENT_PATH",
    "GITHUB_OUTPUT",
    "GITHUB_ENV",
    "GITHUB_PATH",
    "GITHUB_STATE",
    "GITHUB_STEP_SUMMARY",
  ].map((name) => env[name]);
  return [...dirs, ...files.map((file) => (file ? dirname(file) : undefined))].filter(
    (path): path is string => typeof path === "string" && isAbsolute(path),
  );
}

function required(env: NodeJS.ProcessEnv, name: string): string {
  const value = env[name];
  if (!value) throw new Error(`${name} is not set: the action runs as a step of a GitHub Actions job, which sets it`);
  return value;
}

/** What the Action scrubs: the workflow token, the model key, and every secret dropped from its environment. */
export function actionScrubber(env: NodeJS.ProcessEnv, inputs: ActionInputs): Scrubber {
  return processScrubber(env, [inputs.githubToken, inputs.llm?.apiKey]);
}

/** The Action's model client per job, as the App builds it; the workflow may set AUTOGEN_PRICES as the server does. */
export function actionLlmFor(
  env: NodeJS.ProcessEnv,
  inputs: ActionInputs,
  scrub: Scrubber,
  dataDir: string,
): JobDeps["llmFor"] {
  const { llm } = inputs;
  if (!llm) return undefined;
  const prices = pricesFromEnv(env);
  return (config, job, signal) =>
    jobLlmClient({
      endpoint: llm,
      budgets: config.budgets,
      prices,
      transcriptPath: join(dataDir, "transcripts", `job-${job.id}.jsonl`),
      scrub,
      signal,
    });
}

async function runEvent(
  env: NodeJS.ProcessEnv,
  inputs: ActionInputs,
  scrub: Scrubber,
  channels: WorkflowChannels,
): Promise<ActionResult> {
  const name = required(env, "GITHUB_EVENT_NAME");
  if (!EVENTS.has(name)) {
    channels.annotate({
      level: "error",
      message: `autogen-bot does not handle the \`${name}\` event: trigger it on issues, issue_comment, pull_request_review, pull_request_review_comment or workflow_run (see docs/actions.md)`,
    });
    return { exitCode: 1 };
  }
  const payload = JSON.parse(await readFile(required(env, "GITHUB_EVENT_PATH"), "utf8")) as Record<string, unknown>;
  payload.installation ??= { id: TOKEN_INSTALLATION_ID };
  const spacing = writeSpacingFromEnv(env);
  const dataDir = join(required(env, "RUNNER_TEMP"), `autogen-${randomUUID()}`);
  await mkdir(dataDir, { recursive: true });
  const store = new JobStore(join(dataDir, "jobs.db"));
  try {
    let pool: WorkerPool | undefined;
    const probot = new Probot({
      githubToken: inputs.githubToken,
      ...(env.GITHUB_API_URL ? { baseUrl: env.GITHUB_API_URL } : {}),
      logLevel: env.RUNNER_DEBUG === "1" ? "debug" : "info",
      // The log goes to the job's log: structured lines, no colours.
      logFormat: "json",
      Octokit: spacing === undefined ? ProbotOctokit : writeSpacedOctokit(ProbotOctokit, spacing),
    });
    await probot.load(
      createAutogenApp({
        store,
        cacheRoot: join(dataDir, "repos"),
        scrub,
        concurrency: 1,
        perInstallation: 1,
        configOverride: (config) => applyActionInputs(config, inputs),
        // GitHub records the token's own bot as the commits' author (publish-commit.ts checks it).
        botIdentity: tokenBot(probot, inputs.appSlug),
        onReady: (p) => (pool = p),
        llmFor: actionLlmFor(env, inputs, scrub, dataDir),
      }),
    );
    const deliveryId = `actions-${env.GITHUB_RUN_ID ?? "run"}-${env.GITHUB_RUN_ATTEMPT ?? "1"}`;
    await probot.receive({ id: deliveryId, name, payload } as never);
    await pool?.idle();
    const job = await lastJob(store);
    report(job, env, channels);
    return { exitCode: job && job.state !== "done" ? 1 : 0 };
  } finally {
    await store.close();
  }
}

/**
 * Who GitHub records as the author of commits made with the action's token: GITHUB_TOKEN's
 * github-actions[bot], or with an App token (actions/create-github-app-token) that App's bot
 * user, whose id GET /users/<slug>[bot] gives (an installation token cannot call GET /app).
 */
function tokenBot(probot: Probot, appSlug: string | undefined): (installationId: number) => Promise<BotIdentity> {
  if (!appSlug) return async () => ACTIONS_BOT;
  return cachedIdentity(async (_installationId: number) => {
    const octokit = await probot.auth(TOKEN_INSTALLATION_ID);
    const { data } = await octokit.rest.users.getByUsername({ username: `${appSlug}[bot]` });
    if (typeof data.id !== "number")
      throw new Error(
        `GET /users/${appSlug}[bot] answered without a user id: is \`app-slug\` the App whose token \`github-token\` is?`,
      );
    return botIdentity({ slug: appSlug, id: data.id });
  });
}

/** The jobs of this run (the store is new: ids from 1), the last one (a restart follows its job). */
async function lastJob(store: JobStore): Promise<Job | undefined> {
  let last: Job | undefined;
  for (let id = 1; ; id++) {
    const job = await store.get(id);
    if (!job) return last;
    last = job;
  }
}

function branchOf(job: Job): string | undefined {
  if (!job.checkpoint.pushed) return undefined;
  if (job.kind === "ci") return repairBranch(job.number, String(job.checkpoint.headSha));
  return job.checkpoint.branch ?? issueBranch(job.number);
}

function report(job: Job | undefined, env: NodeJS.ProcessEnv, channels: WorkflowChannels): void {
  if (!job) {
    channels.setOutput("outcome", "skipped");
    channels.setOutput("pr-url", "");
    channels.setOutput("branch", "");
    channels.appendSummary(
      "autogen-bot: nothing to do for this event (not a trigger, or the sender may not start work).",
    );
    return;
  }
  const outcome = checkpointOutcome(job.checkpoint);
  const pull = job.checkpoint.pull;
  const server = env.GITHUB_SERVER_URL ?? "https://github.com";
  const prUrl = pull ? `${server}/${job.owner}/${job.repo}/pull/${pull}` : "";
  const branch = branchOf(job) ?? "";
  channels.setOutput("outcome", outcome ? outcome.status : job.state);
  channels.setOutput("pr-url", prUrl);
  channels.setOutput("branch", branch);
  if (outcome) {
    const title =
      job.kind === "ci" ? `autogen: repair of the red build of #${job.number}` : `autogen: ${job.snapshot.title}`;
    channels.appendSummary(
      `${renderReport(outcome, { title, branch: branch || undefined })}\n${prUrl ? `\nPull request: ${prUrl}\n` : ""}`,
    );
    for (const annotation of jobAnnotations(outcome)) channels.annotate(annotation);
  } else {
    channels.appendSummary(`autogen-bot: job ${job.state}${job.error ? `: ${job.error}` : ""}`);
  }
  if (job.state !== "done")
    channels.annotate({
      level: "error",
      message: `autogen-bot: the job ${job.state}${job.error ? `: ${job.error}` : ""}`,
    });
}
