// End to end, a red build on a pull request: real `workflow_run.completed` /
// `check_suite.completed` / `issue_comment.created` payloads (@octokit/webhooks-examples,
// adapted) into a real Probot; GitHub's REST API faked at the HTTP level with every
// request checked against its published description; the Actions runner played by
// test/support/fake-actions-runner.ts, which runs pytest for real on the pushed commit
// and returns its log (runner format) and zipped JUnit report through GitHub's redirects.
// Shared by test/app/ci-flow-*.test.ts (one file per theme, so two workers share the flows):
// the repository fixture, the App under test, payloads, and the checks after every test.
import { execFileSync } from "node:child_process";
import { mkdtemp, rename, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "./test-octokit.ts";
import { afterEach, beforeEach, expect } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { MemoryPool } from "../../src/engine/memory/memory-pool.ts";
import type { LlmClient } from "../../src/llm/llm-client.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeActions, fakeGitHub, type FakeGitHubState } from "./fake-github.ts";
import { runDispatch } from "./fake-actions-runner.ts";
import { fixtureCopy } from "./fixture-copies.ts";
import { commit, gitRepo, sh } from "./git-repo.ts";
import { networkGuard } from "./network-guard.ts";
import { testPrivateKey } from "./private-key.ts";
import { webhookExample } from "./webhook-examples.ts";

export const CART_OK = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal - discount\n";
export const CART_PR =
  "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n\n\ndef bulk_total(orders):\n    return [total(p, d) for p, d in orders]\n";
export const TESTS =
  "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n";
export const LEGACY = "def test_legacy_rounding():\n    assert round(2.675, 2) == 2.68\n";
export const FLAKY =
  "import pathlib\n\n\ndef test_sometimes():\n    counter = pathlib.Path(__file__).parent / 'runs.txt'\n    n = int(counter.read_text()) + 1 if counter.exists() else 1\n    counter.write_text(str(n))\n    assert n % 2 == 0\n";
/** A model's verified plan for the broken discount, and its implementation (LPW stages). */
export const PLAN_ANSWERS = [
  {
    stage: "plan",
    content: { steps: ["Sum the prices", "Subtract the discount from the sum, as before the pull request"] },
  },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "test_total_applies_discount",
          steps: [
            { step: 1, value: "30" },
            { step: 2, value: "25" },
          ],
          derived: "25",
          expected: "25",
          matches: true,
        },
      ],
    },
  },
];
export const IMPLEMENT_ANSWER = {
  stage: "implement",
  content: {
    edits: [
      {
        kind: "replace",
        path: "shop/cart.py",
        search: "return subtotal + discount",
        replace: "return subtotal - discount",
      },
    ],
  },
};

/** The default branch of most tests: a correct cart and its tests. */
export const MAIN = { "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": TESTS };
export const config = (extra = "") =>
  `triggers:\n  ciFailure: auto\ntest:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n${extra}`;

export { commit, sh };

export let root: string;
export let work: string;
export let remote: string;
export let state: FakeGitHubState;
export let github: ReturnType<typeof fakeGitHub>;
export let store: JobStore;
export const network = networkGuard();

export const remoteBranches = () =>
  execFileSync("git", ["--git-dir", remote, "branch", "--format=%(refname:short)"], { encoding: "utf8" })
    .trim()
    .split("\n");
export const remoteFile = (ref: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${ref}:${path}`], { encoding: "utf8" });

/**
 * main, then a pull request branch with `files` changed, pushed to the bare remote (for a fork: only as
 * refs/pull/7/head). Built once per test file for each distinct fixture and copied for each test.
 */
export async function repository(
  main: Record<string, string>,
  pr: Record<string, string>,
  options: { fork?: boolean; extraConfig?: string } = {},
) {
  const text = config(options.extraConfig);
  work = await mkdtemp(join(tmpdir(), "autogen-gitrepo-"));
  remote = join(root, "remote.git");
  const build = async (dir: string) => {
    const built = await gitRepo({ ...main, ".github/autogen.yml": text });
    const bare = join(dir, "remote.git");
    execFileSync("git", ["clone", "--quiet", "--bare", built, bare]);
    const baseSha = sh(built, "rev-parse", "HEAD");
    sh(built, "switch", "--quiet", "--create", "feature/bulk");
    for (const [name, content] of Object.entries(pr)) await writeFile(join(built, name), content);
    sh(built, "add", "--all");
    commit(built, "Add bulk totals");
    const headSha = sh(built, "rev-parse", "HEAD");
    sh(built, "push", "--quiet", bare, options.fork ? "HEAD:refs/pull/7/head" : "feature/bulk");
    await rename(built, join(dir, "work"));
    return { baseSha, headSha };
  };
  const key = JSON.stringify(["ci-flow", main, pr, options]);
  const { baseSha, headSha } = await fixtureCopy(key, build, { work, "remote.git": remote });
  state = {
    issue: { title: "unused", body: "" },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", contributor: "read" },
    files: { ".github/autogen.yml": text },
    defaultBranch: "main",
    cloneUrl: remote,
    prs: {
      7: {
        title: "Bulk totals",
        body: "Adds bulk_total.",
        state: "open",
        headRef: "feature/bulk",
        headSha,
        baseRef: "main",
        baseSha,
        fork: options.fork ?? false,
      },
    },
    commitPulls: { [headSha]: [7] },
  };
  const actions = fakeActions(["autogen-verify.yml"]);
  actions.onDispatch = (dispatch, run) => void runDispatch(actions, remote, dispatch, run);
  state.actions = actions;
  github = fakeGitHub(state);
  return { baseSha, headSha, actions };
}

/** Every worker pool a test started: stopped after it, so a job left running (a test that timed out) cannot call GitHub during the next test. */
export const pools: WorkerPool[] = [];

/** The hooks of every ci-flow file: a fresh folder, job store and network guard per test; after it, the checks every flow must pass. */
export function useCiFlowHarness(): void {
  beforeEach(async () => {
    network.start();
    root = await mkdtemp(join(tmpdir(), "autogen-ci-"));
    store = new JobStore(join(root, "jobs.db"));
  });

  afterEach(async () => {
    await Promise.all(pools.splice(0).map((pool) => pool.stop(60_000)));
    const { unmatched, unused } = network.stop();
    store.close();
    expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
    expect(unmatched, "requests nothing answered").toEqual([]);
    expect(
      state.actions?.storageAuthorization,
      "our token must not follow the redirect to log or artifact storage",
    ).toEqual([]);
    expect(unused, "scripted model answers never used").toEqual([]);
  });
}

export async function startApp(
  options: { actionsTimeoutMs?: number; pollMs?: number; memory?: MemoryPool; llm?: () => LlmClient } = {},
) {
  let pool: WorkerPool | undefined;
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  await probot.load(
    createAutogenApp({
      store,
      appId: 1,
      cacheRoot: join(root, "cache"),
      scrub: secretScrubber([testPrivateKey()]),
      concurrency: 1,
      perInstallation: 1,
      statusThrottleMs: 60_000,
      pollMs: options.pollMs ?? 40,
      actionsTimeoutMs: options.actionsTimeoutMs ?? 120_000,
      onReady: (p) => {
        pool = p;
        pools.push(p);
      },
      memory: options.memory,
      llmFor: options.llm,
    }),
  );
  return {
    probot,
    idle: async () => {
      // A restarted job is queued by the job it replaces: wait until nothing is left.
      while (pool && ((await store.queueDepth()).queued > 0 || (await store.queueDepth()).running > 0))
        await pool.idle().then(() => new Promise((r) => setTimeout(r, 20)));
    },
  };
}

export const repo = (payload: Record<string, unknown>) => ({
  ...(payload.repository as object),
  name: "shop",
  full_name: "octo-org/shop",
  default_branch: "main",
  owner: { ...(payload.repository as { owner: object }).owner, login: "octo-org" },
});

export function workflowRunCompleted(
  run: { id: number; head_sha: string; pull_requests: Array<{ number: number }> },
  sender = "maintainer",
) {
  const payload = webhookExample("workflow_run", "completed") as Record<string, unknown> & {
    workflow_run: Record<string, unknown>;
    workflow: Record<string, unknown>;
  };
  payload.repository = repo(payload);
  payload.workflow = { ...payload.workflow, path: ".github/workflows/ci.yml" };
  payload.workflow_run = {
    ...payload.workflow_run,
    id: run.id,
    path: ".github/workflows/ci.yml",
    event: "pull_request",
    status: "completed",
    conclusion: "failure",
    head_sha: run.head_sha,
    head_branch: "feature/bulk",
    pull_requests: run.pull_requests.map((p) => ({
      number: p.number,
      head: { ref: "feature/bulk", sha: run.head_sha, repo: {} },
      base: { ref: "main", sha: "0", repo: {} },
    })),
  };
  payload.sender = { ...(payload.sender as object), login: sender, id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

export function prComment(body: string, sender = "maintainer") {
  const payload = webhookExample("issue_comment", "created") as Record<string, unknown> & {
    issue: Record<string, unknown>;
    comment: Record<string, unknown>;
  };
  payload.repository = repo(payload);
  payload.issue = {
    ...payload.issue,
    number: 7,
    title: "Bulk totals",
    body: "Adds bulk_total.",
    pull_request: { url: "https://api.github.com/repos/octo-org/shop/pulls/7" },
  };
  payload.comment = { ...payload.comment, body };
  payload.sender = { ...(payload.sender as object), login: sender, id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

export const statusComment = () => state.comments.find((c) => c.number === 7)?.body ?? "";
