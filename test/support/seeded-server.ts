// A real `autogen serve` server (startServer) whose job store is seeded by real jobs: signed
// webhooks posted to it, the gate and the jobs run against a fake GitHub at the HTTP level
// (every request checked against GitHub's REST description), a real local repository
// cloned and fixed by the model-free strategy, pytest run for real. What it leaves:
//   octo-org/shop#42  fixed, pull request opened
//   octo-org/other#43 cancelled (the issue on GitHub no longer matches the labelled text); its title is hostile HTML
//   a label by a reader (refused by the gate), a redelivery, a badly signed delivery
//   octo-org/shop#44  marked running by hand (a job in progress, for the "now" view)
//   the PR of #42 merged (a real pull_request.closed delivery)
//   octo-org/shop#7   a red-build job finished by hand: not fixed (exhausted), tests on GitHub Actions
//                     (120 s, 2 runs), a check run in its checkpoint, and a canary secret and prompt in
//                     its checkpoint and outcome that no page and no metric may show
//   octo-org/shop#46  a plan job that gave up: failed with GitHub's 502 after 5 attempts
import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { DestinationStream } from "pino";
import { TestOctokit } from "./test-octokit.ts";
import { loadServerConfig } from "../../src/config/env-config.ts";
import type { OpsConfig } from "../../src/config/ops-config.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { fakeGitHub, type FakeGitHubState } from "./fake-github.ts";
import { gitRepo } from "./git-repo.ts";
import { testPrivateKey } from "./private-key.ts";
import { postWebhook, webhookExample } from "./webhook-examples.ts";

export const SECRET = "seeded-server-secret";
export const HOSTILE_TITLE = `<script>alert("x")</script><img src=x onerror=alert(1)> & "quotes"`;
const CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n';
const FILES = {
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
};
export const SECRET_CANARY = "ghs_CanarySecretToken0123456789abcdefXYZ";
export const PROMPT_CANARY = "PROMPT-CANARY: You are an expert software engineer; fix the failing tests";
export const CHECK_RUN_URL = "https://github.com/octo-org/shop/runs/555";
export const GAVE_UP = "GitHub answered 502 (Bad Gateway); gave up after 5 attempts";
export const ISSUE = {
  title: "Discount is added instead of subtracted",
  body: "total([10, 20], 5) gives 35, it should be 25.",
};

export type SeededServer = {
  running: RunningServer;
  state: FakeGitHubState;
  github: ReturnType<typeof fakeGitHub>;
  /** Deliveries posted, by what the server answered. */
  answers: Record<string, number>;
  dbPath: string;
};

function labeled(
  repo: string,
  number: number,
  issue: { title: string; body: string },
  sender = { login: "maintainer", id: 7, type: "User" },
) {
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & {
    repository: Record<string, unknown>;
    issue: Record<string, unknown>;
  };
  payload.repository = {
    ...payload.repository,
    name: repo,
    full_name: `octo-org/${repo}`,
    default_branch: "main",
    owner: { ...(payload.repository.owner as object), login: "octo-org" },
  };
  payload.issue = { ...payload.issue, number, title: issue.title, body: issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), ...sender };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

async function until(check: () => Promise<boolean>, what: string, ms = 170_000): Promise<void> {
  const end = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`the seeded server never got to: ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Starts the server (port `port`, 0 for any) and runs the seed jobs; the network guard must be started. */
export async function seededServer(
  ops: OpsConfig,
  port = 0,
  logDestination?: DestinationStream,
): Promise<SeededServer> {
  const root = await mkdtemp(join(tmpdir(), "autogen-seeded-"));
  const work = await gitRepo({ ...FILES, ".github/autogen.yml": CONFIG });
  const remote = join(root, "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  const state: FakeGitHubState = {
    issue: { ...ISSUE },
    issues: { 43: { title: "Edited since", body: "not what was labelled" } },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", visitor: "read" },
    files: { ".github/autogen.yml": CONFIG },
    defaultBranch: "main",
    cloneUrl: remote,
  };
  const github = fakeGitHub(state);
  const dbPath = join(root, "data", "autogen.db");
  const config = loadServerConfig({
    APP_ID: "1",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: SECRET,
    HOST: "127.0.0.1",
    PORT: String(port),
    LOG_LEVEL: logDestination ? "debug" : "fatal",
    AUTOGEN_DB_PATH: dbPath,
  });
  const running = await startServer(config, {
    Octokit: TestOctokit,
    ops,
    ...(logDestination ? { logDestination } : {}),
  });
  const hook = `${running.url}/api/github/webhooks`;
  const answers: Record<string, number> = {};
  const post = async (payload: unknown, id: string, signature?: string, event = "issues") => {
    const response = await postWebhook(hook, SECRET, event, payload, id, signature);
    answers[id] = response.status;
  };
  await post(labeled("shop", 42, ISSUE), "seed-1");
  await post(labeled("other", 43, { title: HOSTILE_TITLE, body: "see title" }), "seed-2");
  await post(labeled("shop", 42, ISSUE, { login: "visitor", id: 9, type: "User" }), "seed-3");
  await post(labeled("shop", 42, ISSUE), "seed-1");
  await post(labeled("shop", 42, ISSUE), "seed-bad", "sha256=0000");
  const store = running.store;
  await until(async () => {
    const [inbox, queue] = [await store.inboxDepth(), await store.queueDepth()];
    return (
      inbox.pending === 0 &&
      queue.queued === 0 &&
      queue.running === 0 &&
      (await store.latest("octo-org", "other", 43))?.state === "cancelled" &&
      (await store.latest("octo-org", "shop", 42))?.state === "done"
    );
  }, "both jobs ended");
  // The bot's PR merged: GitHub's delivery, as the App receives it.
  const pull = state.pulls[0];
  const merged = webhookExample("pull_request", "closed") as Record<string, unknown> & {
    pull_request: Record<string, unknown>;
    repository: Record<string, unknown>;
  };
  merged.repository = {
    ...merged.repository,
    name: "shop",
    full_name: "octo-org/shop",
    owner: { ...(merged.repository.owner as object), login: "octo-org" },
  };
  merged.pull_request = {
    ...merged.pull_request,
    number: pull?.number,
    merged: true,
    head: { ...(merged.pull_request.head as object), ref: "autogen/issue-42" },
  };
  merged.installation = { id: 99, node_id: "MDIz" };
  await post(merged, "seed-merge", undefined, "pull_request");
  await until(async () => (await store.inboxDepth()).pending === 0, "the merge delivery handled");
  // A job in progress: queued and claimed in one synchronous step, so the pool never takes it
  // (the SQLite store's methods do their work before their first await: both calls run now).
  const side = new JobStore(dbPath);
  const enqueued = side.enqueue({
    deliveryId: "seed-4",
    installationId: 99,
    owner: "octo-org",
    repo: "shop",
    number: 44,
    kind: "fix",
    requester: "maintainer",
    requesterId: 7,
    snapshot: { title: "Totals are rounded wrongly", body: "…" },
  });
  const claimed = side.claimNext(99);
  const ciEnqueued = side.enqueue({
    deliveryId: "seed-5",
    installationId: 99,
    owner: "octo-org",
    repo: "shop",
    number: 7,
    kind: "ci",
    requester: "maintainer",
    requesterId: 7,
    snapshot: { title: "Red build on feature branch", body: "" },
  });
  const ciClaimed = side.claimNext(99);
  const planEnqueued = side.enqueue({
    deliveryId: "seed-6",
    installationId: 99,
    owner: "octo-org",
    repo: "shop",
    number: 46,
    kind: "plan",
    requester: "maintainer",
    requesterId: 7,
    snapshot: { title: "Plan the refactor", body: "" },
  });
  const planClaimed = side.claimNext(99);
  const queued = await enqueued;
  if (!queued.queued || (await claimed)?.id !== queued.job.id)
    throw new Error("the running job was not queued and claimed");
  await side.checkpoint(queued.job.id, { stage: "plan" });
  const ci = await ciEnqueued;
  if (!ci.queued || (await ciClaimed)?.id !== ci.job.id)
    throw new Error("the red-build job was not queued and claimed");
  const evidence = {
    passed: 3,
    failed: 1,
    skipped: 0,
    isolation: "actions",
    tests: [{ id: "tests/test_cart.py::test_total_applies_discount", status: "failed" }],
  };
  await side.checkpoint(ci.job.id, {
    stage: "attempt",
    checkRun: { id: 555, url: "https://api.github.com/repos/octo-org/shop/check-runs/555", html_url: CHECK_RUN_URL },
    installationToken: SECRET_CANARY,
    prompt: PROMPT_CANARY,
    outcome: {
      strategy: "ci-repair",
      status: "not-fixed",
      stopReason: "exhausted",
      message: "No candidate made the failing test pass.",
      plan: { localisation: [], steps: [] },
      attempts: [
        {
          index: 1,
          description: "swap the operator",
          result: "still-failing",
          passed: 3,
          failed: 1,
          analysis: PROMPT_CANARY,
        },
      ],
      evidence: { before: evidence, after: evidence },
      changedFiles: [],
      transcript: [{ role: "user", content: PROMPT_CANARY }],
      cost: {
        llmCalls: 2,
        promptTokens: 1000,
        completionTokens: 200,
        dollars: 0.25,
        llmSeconds: 4,
        testRuns: 2,
        testSeconds: 120,
        wallSeconds: 150,
        candidatesGenerated: 1,
        candidatesTried: 1,
      },
    },
  });
  await side.finish(ci.job.id, "done");
  const plan = await planEnqueued;
  if (!plan.queued || (await planClaimed)?.id !== plan.job.id)
    throw new Error("the plan job was not queued and claimed");
  await side.finish(plan.job.id, "failed", `${GAVE_UP}\n${SECRET_CANARY}`);
  await side.close();
  return { running, state, github, answers, dbPath };
}
