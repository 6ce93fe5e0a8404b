// The App's real path for one hostile repository, in a process of its own so that the
// bot's secrets are in its environment from the start (as in `autogen serve`), where a
// test reading /proc/<pid>/environ would find them: a real Probot with the App loaded, a
// labelled-issue webhook, GitHub faked at the HTTP level (test/support/fake-github.ts)
// with a canary installation token, a real bare repository as the push target, the
// local verifier and the publish path (RepoCache → commitAndPush through the fake Git Data API).
//
//   node test/security/support/app-harness.ts <input.json> <output.json>
//
// input: { checkout, root, installationToken, and optionally the repository's config, the
// issue, and a model (an OpenAI-compatible server on loopback, see
// test/llm/fake-model-server.ts: the job then gets its client as app-from-config builds it,
// with the scrubber and a transcript under <root>/transcripts) }; output: what GitHub was
// sent, what the remote holds, the job's checkpointed outcome (its test evidence), the
// transcripts, the process's peak memory, errors.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import nock from "nock";
import { Probot } from "probot";
import { TestOctokit } from "../../support/test-octokit.ts";
import { createAutogenApp } from "../../../src/app/create-app.ts";
import { JobStore } from "../../../src/jobs/job-store.ts";
import { jobLlmClient } from "../../../src/llm/job-llm-client.ts";
import type { WorkerPool } from "../../../src/jobs/worker-pool.ts";
import { processSecrets, secretScrubber } from "../../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeGitHubState } from "../../support/fake-github.ts";
import { testPrivateKey } from "../../support/private-key.ts";
import { webhookExample } from "../../support/webhook-examples.ts";

// A small budget (60 candidates, 3 minutes): the fix takes one or two; a confused run must not take the suite's time.
export const APP_CONFIG =
  'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\nbudgets:\n  iterations: 3\n  minutes: 3\n';
export const APP_ISSUE = { title: "add() subtracts", body: "add(2, 3) gives -1, it should be 5." };

type Input = {
  checkout: string;
  root: string;
  remote: string;
  installationToken: string;
  config?: string;
  issue?: { title: string; body: string };
  model?: { baseURL: string };
};

async function main(): Promise<void> {
  const [inputPath, outputPath] = process.argv.slice(2) as [string, string];
  const input = JSON.parse(readFileSync(inputPath, "utf8")) as Input;
  execFileSync("git", ["clone", "--quiet", "--bare", input.checkout, input.remote]);

  nock.disableNetConnect();
  nock.enableNetConnect(/^(127\.0\.0\.1|localhost)(:\d+)?$/);
  // The installation token is a canary: registered before the fake's catch-all, so it answers first.
  nock("https://api.github.com")
    .persist()
    .post(/^\/app\/installations\/\d+\/access_tokens$/)
    .reply(201, () => ({
      token: input.installationToken,
      expires_at: new Date(Date.now() + 3600_000).toISOString(),
      permissions: { contents: "write" },
    }));
  const issue = input.issue ?? APP_ISSUE;
  const state: FakeGitHubState = {
    issue: { ...issue },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write" },
    files: { ".github/autogen.yml": input.config ?? APP_CONFIG },
    defaultBranch: "main",
    cloneUrl: input.remote,
  };
  const github = fakeGitHub(state);
  const store = new JobStore(join(input.root, "jobs.db"));
  let pool: WorkerPool | undefined;
  const privateKey = testPrivateKey();
  // As app-from-config builds it: this process's secrets and the App's key.
  const scrub = secretScrubber([...processSecrets(process.env), privateKey]);
  const transcripts = join(input.root, "transcripts");
  const model = input.model;
  const probot = new Probot({
    appId: 1,
    privateKey,
    secret: process.env.WEBHOOK_SECRET ?? "unset",
    // Its logs go to stdout, which the scenario sweeps for canaries with everything else.
    logLevel: "debug",
    Octokit: TestOctokit,
  });
  await probot.load(
    createAutogenApp({
      store,
      cacheRoot: join(input.root, "cache"),
      scrub,
      // As app-from-config builds it, when a model is given.
      llmFor: model
        ? (repoConfig, job, signal) =>
            jobLlmClient({
              endpoint: { baseURL: model.baseURL, apiKey: "local", model: "local" },
              budgets: repoConfig.budgets,
              scrub,
              transcriptPath: join(transcripts, `job-${job.id}.jsonl`),
              signal,
            })
        : undefined,
      concurrency: 1,
      perInstallation: 1,
      statusThrottleMs: 60_000,
      onReady: (p) => (pool = p),
    }),
  );
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & {
    repository: Record<string, unknown>;
    issue: Record<string, unknown>;
  };
  payload.repository = {
    ...payload.repository,
    name: "shop",
    full_name: "octo-org/shop",
    default_branch: "main",
    owner: { ...(payload.repository.owner as object), login: "octo-org" },
  };
  payload.issue = { ...payload.issue, number: 42, title: issue.title, body: issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  await probot.receive({ id: "redteam-1", name: "issues", payload } as never);
  await pool?.idle();

  const job = await store.latest("octo-org", "shop", 42);
  const refs = (dir: string) =>
    execFileSync("git", ["--git-dir", dir, "for-each-ref", "--format=%(refname)"], { encoding: "utf8" })
      .trim()
      .split("\n")
      .filter(Boolean);
  const history = execFileSync("git", ["--git-dir", input.remote, "log", "-p", "--all", "--format=%H %an%n%B"], {
    encoding: "utf8",
  });
  store.close();
  writeFileSync(
    outputPath,
    JSON.stringify(
      {
        comments: state.comments,
        pulls: state.pulls,
        remoteRefs: refs(input.remote),
        history,
        job: job ? { state: job.state, error: job.error, checkpoint: job.checkpoint } : undefined,
        githubErrors: github.errors,
        transcripts: existsSync(transcripts)
          ? readdirSync(transcripts)
              .map((f) => readFileSync(join(transcripts, f), "utf8"))
              .join("\n")
          : "",
        maxRssKb: process.resourceUsage().maxRSS,
      },
      null,
      2,
    ),
  );
  nock.cleanAll();
}

await main();
process.exit(0);
