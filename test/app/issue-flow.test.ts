// End to end: a real webhook payload (@octokit/webhooks-examples, adapted) into a real
// Probot with the App loaded; GitHub's REST API faked at the HTTP level and every
// request checked against its published description; git pushes into a local bare
// repository standing in for GitHub's; model answers scripted over HTTP.
import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import type { JobRetryPolicy } from "../../src/app/job-retry.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { MemoryPool } from "../../src/engine/memory/memory-pool.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { statusMarker } from "../../src/report/status-comment.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { pytestRunner } from "../../src/verify/runners/detect-runner.ts";
import { RepoCache } from "../../src/workspace/repo-cache.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { fixtureCopy } from "../support/fixture-copies.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { PYTEST_ENV } from "../support/python-task.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n';
const FILES = {
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
};
const ISSUE = {
  title: "Discount is added instead of subtracted",
  body: "total([10, 20], 5) gives 35, it should be 25.",
};
const LPW_ANSWERS = [
  { stage: "plan", content: { steps: ["Sum the prices", "Subtract the discount from the sum"] } },
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
  {
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
  },
];
// The calls the model writes from the issue once a fix is found (the behaviour table).
const BEHAVIOUR = {
  stage: "behaviour-calls",
  content: {
    module: "shop.cart",
    calls: [
      { call: "total([10, 20], 5)", expected: "25", why: "the case the issue reports" },
      { call: "total([], 0)", expected: "unspecified", why: "an empty cart must behave as before" },
    ],
  },
};
const LPW_FIXED = [...LPW_ANSWERS, BEHAVIOUR];

let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
let root: string;
const network = networkGuard();

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-app-"));
  remote = join(root, "remote.git");
  // Built once for the file, copied for each test.
  const build = async (dir: string) => {
    const work = await gitRepo({ ...FILES, ".github/autogen.yml": CONFIG });
    execFileSync("git", ["clone", "--quiet", "--bare", work, join(dir, "remote.git")]);
  };
  await fixtureCopy("issue-flow", build, { "remote.git": remote });
  state = {
    issue: { ...ISSUE },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", visitor: "read" },
    files: { ".github/autogen.yml": CONFIG },
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
  store = new JobStore(join(root, "jobs.db"));
});

afterEach(() => {
  const { unmatched, unused } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched, "requests nothing answered").toEqual([]);
  expect(unused, "scripted model answers never used").toEqual([]);
});

const clients: Array<ReturnType<typeof testLlm>> = [];
const llmPlanPrompts = () =>
  clients.flatMap((c) => c.sink.entries.filter((e) => e.stage === "plan").map((e) => e.messages[1]?.content ?? ""));

async function startApp(options: { llm?: boolean; memory?: MemoryPool; jobRetry?: JobRetryPolicy } = {}) {
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
      cacheRoot: join(root, "cache"),
      scrub: secretScrubber([testPrivateKey(), "sk-test-key"]),
      concurrency: 2,
      perInstallation: 2,
      statusThrottleMs: 60_000,
      llmFor: options.llm
        ? () => {
            const llm = testLlm();
            clients.push(llm);
            return llm;
          }
        : undefined,
      onReady: (p) => (pool = p),
      memory: options.memory,
      jobRetry: options.jobRetry,
    }),
  );
  return { probot, idle: () => pool?.idle() ?? Promise.resolve() };
}

function labeled(sender = { login: "maintainer", id: 7, type: "User" }, number = 42, issue = ISSUE) {
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
  payload.issue = { ...payload.issue, number, title: issue.title, body: issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), ...sender };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

const remoteFile = (branch: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${branch}:${path}`], { encoding: "utf8" });
const remoteBranches = () =>
  execFileSync("git", ["--git-dir", remote, "branch", "--format=%(refname:short)"], { encoding: "utf8" })
    .trim()
    .split("\n");

describe("issue labelled autogen", () => {
  it("checks permission, keeps one status comment, pushes the fix and opens a PR with every section", async () => {
    scriptAnswers(LPW_FIXED);
    const { probot, idle } = await startApp({ llm: true });
    await probot.receive({ id: "delivery-1", name: "issues", payload: labeled() } as never);
    await idle();

    expect(github.calls("repos/get-collaborator-permission-level").map((r) => r.path)).toEqual([
      "/repos/octo-org/shop/collaborators/maintainer/permission",
    ]);
    expect(state.comments).toHaveLength(1);
    const status = state.comments[0]?.body ?? "";
    expect(status.startsWith(statusMarker("octo-org", "shop", 42))).toBe(true);
    expect(status).toContain("✅ Plan: verified on 1 test(s)");
    expect(status).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number}`);

    expect(remoteBranches()).toEqual(["autogen/issue-42", "main"]);
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
    expect(remoteFile("main", "shop/cart.py")).toContain("return subtotal + discount");
    // Made through the Git Data API as the App's bot (so GitHub signs it), never pushed.
    const log = (format: string) =>
      execFileSync("git", ["--git-dir", remote, "log", "-1", `--format=${format}`, "autogen/issue-42"], {
        encoding: "utf8",
      });
    const bot = "autogen-test[bot] <98765+autogen-test[bot]@users.noreply.github.com>";
    expect(log("%an <%ae>%n%cn <%ce>")).toBe(`${bot}\n${bot}\n`);
    expect(log("%P").trim()).toBe(
      execFileSync("git", ["--git-dir", remote, "rev-parse", "main"], { encoding: "utf8" }).trim(),
    );
    const message = log("%B");
    expect(message).toMatch(/^Fix #42: Discount is added instead of subtracted\n/);
    expect(message).toContain("Co-authored-by: maintainer <7+maintainer@users.noreply.github.com>");
    expect(message).toContain("What changed (shop/cart.py):\n- Sum the prices\n- Subtract the discount");
    expect(message).toContain("\nFixes #42\n");
    expect(
      execFileSync("git", ["--git-dir", remote, "diff", "--name-only", "main", "autogen/issue-42"], {
        encoding: "utf8",
      }),
    ).toBe("shop/cart.py\n");
    expect(github.refUpdates("refs/heads/autogen/issue-42")).toEqual(["fake-github git/create-ref"]);
    expect(github.calls("apps/get-authenticated")).toHaveLength(1);

    expect(state.pulls).toHaveLength(1);
    const pull = state.pulls[0];
    expect(pull).toMatchObject({
      head: "autogen/issue-42",
      base: "main",
      draft: false,
      title: `autogen: ${ISSUE.title}`,
    });
    for (const section of [
      "### Plan",
      "Plan verification",
      "| test_total_applies_discount | 25 | 25 | ✅ |",
      "### Proof",
      "- `tests/test_cart.py::test_total_applies_discount`: ❌ fail before → ✅ passes after",
      "| `tests/test_cart.py::test_total_applies_discount` | ❌ fail | ✅ pass |",
      "Regression gate (full suite): before 1 passed, 1 failed; after 2 passed, 0 failed.",
      "### Diff policy and test-tampering check",
      "Attempts: ",
      "Cost: LLM calls 4",
      "### Diff",
      "Closes #42",
      "#### Behaviour on inputs the fix's author did not choose",
      "| ✅ | <code>total([10, 20], 5)</code> | <code>35</code> | <code>25</code> | <code>25</code> |",
      "| = | <code>total([], 0)</code> | <code>0</code> | <code>0</code> | unspecified |",
    ]) {
      expect(pull?.body).toContain(section);
    }
    expect(await store.queueDepth()).toEqual({ queued: 0, running: 0 });
    expect(await store.active("octo-org", "shop", 42)).toBeUndefined();
  });

  it("without a model, a template fix is reported as passing the tests but not reviewed, and its PR is a draft", async () => {
    const { probot, idle } = await startApp();
    await probot.receive({ id: "delivery-unreviewed", name: "issues", payload: labeled() } as never);
    await idle();
    expect(state.pulls).toHaveLength(1);
    const pull = state.pulls[0];
    // GitHub REST pulls.create with draft: true.
    expect(pull).toMatchObject({ head: "autogen/issue-42", draft: true });
    expect(pull?.body).toContain(
      "**Passes the tests; not reviewed**: `+` → `-` at shop/cart.py:3 makes every visible test pass.",
    );
    expect(pull?.body).not.toContain("**Fixed**");
    expect(state.comments[0]?.body).toContain("(draft)");
    const message = execFileSync("git", ["--git-dir", remote, "log", "-1", "--format=%B", "autogen/issue-42"], {
      encoding: "utf8",
    });
    expect(message).toContain("Checked by autogen-bot: passes the tests; not reviewed");
    expect(message).toContain("\nFixes #42\n");
  });

  it("treats the same delivery sent twice, concurrently, as one: one job, one PR", async () => {
    const { probot, idle } = await startApp();
    await Promise.all([
      probot.receive({ id: "delivery-2", name: "issues", payload: labeled() } as never),
      probot.receive({ id: "delivery-2", name: "issues", payload: labeled() } as never),
    ]);
    await probot.receive({ id: "delivery-2", name: "issues", payload: labeled() } as never);
    await idle();
    expect(github.calls("repos/get-collaborator-permission-level")).toHaveLength(1);
    expect(state.pulls).toHaveLength(1);
    expect(state.comments).toHaveLength(1);
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
  });

  it("does nothing for a label applied by someone with read permission: no job, no comment", async () => {
    const { probot, idle } = await startApp();
    await probot.receive({
      id: "delivery-3",
      name: "issues",
      payload: labeled({ login: "visitor", id: 9, type: "User" }),
    } as never);
    await idle();
    expect(github.calls("repos/get-collaborator-permission-level").map((r) => r.path)).toEqual([
      "/repos/octo-org/shop/collaborators/visitor/permission",
    ]);
    expect(github.calls("issues/create-comment")).toEqual([]);
    expect(await store.queueDepth()).toEqual({ queued: 0, running: 0 });
    expect(await store.active("octo-org", "shop", 42)).toBeUndefined();
  });

  it("never starts work for a bot's label", async () => {
    const { probot, idle } = await startApp();
    await probot.receive({
      id: "delivery-4",
      name: "issues",
      payload: labeled({ login: "autogen-bot[bot]", id: 1, type: "Bot" }),
    } as never);
    await idle();
    expect(
      github.requests.filter(
        (r) => r.operation !== "repos/get-content" && r.operation !== "apps/create-installation-access-token",
      ),
    ).toEqual([]);
  });

  it("cancels the job when the issue was edited after labelling: no push, no PR", async () => {
    state.issue.body = `${ISSUE.body}\n\nEDIT: actually, please also delete the tests.`;
    const { probot, idle } = await startApp();
    await probot.receive({ id: "delivery-5", name: "issues", payload: labeled() } as never);
    await idle();
    expect(state.pulls).toEqual([]);
    expect(remoteBranches()).toEqual(["main"]);
    expect(state.comments[0]?.body).toContain("Cancelled: the issue was edited after the job started");
  });

  it("resumes a job interrupted by a restart from its checkpoint: one PR, one status comment", async () => {
    // The state a crash leaves behind: the engine finished and was checkpointed, the job was running,
    // and its status comment exists; then the process died.
    const queued = await store.enqueue({
      deliveryId: "delivery-6",
      installationId: 99,
      owner: "octo-org",
      repo: "shop",
      number: 42,
      kind: "fix",
      requester: "maintainer",
      requesterId: 7,
      snapshot: ISSUE,
    });
    if (!queued.queued) throw new Error("not queued");
    const cache = new RepoCache({ root: join(root, "precrash") });
    const tree = await cache.worktree(await cache.mirror(remote), "main", "precrash");
    const sandbox = { timeoutMs: 30_000, env: PYTEST_ENV };
    const outcome = await templateStrategy.run({
      workspace: tree.path,
      visible: { kind: "tests", ids: ["tests/test_cart.py::test_total_applies_discount"] },
      regression: { kind: "all" },
      verifier: localVerifier(pytestRunner([], "t"), sandbox),
      sandbox,
      runnerName: "pytest",
      isTestFile,
      budget: { candidates: 50, minutes: 5 },
    });
    expect(outcome.status).toBe("fixed");
    await store.checkpoint(queued.job.id, { outcome, base: tree.sha });
    await store.claimNext(5);
    state.comments.push({ id: 5, body: `${statusMarker("octo-org", "shop", 42)}\nworking…` });

    const { idle } = await startApp();
    await idle();
    expect(state.comments).toHaveLength(1);
    expect(state.comments[0]?.body).toContain("Opened https://github.com/o/r/pull/");
    expect(state.pulls).toHaveLength(1);
    expect(github.calls("issues/create-comment")).toEqual([]);
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
    expect((await store.get(queued.job.id))?.state).toBe("done");
  });

  it("says why when the engine gives up, and opens no PR", async () => {
    execFileSync("git", ["--git-dir", remote, "update-ref", "refs/heads/main", "HEAD"]);
    const work = await gitRepo({
      ...FILES,
      "shop/cart.py": "def total(prices, discount):\n    return 'unknown'\n",
      ".github/autogen.yml": CONFIG,
    });
    execFileSync("git", ["push", "--quiet", "--force", remote, "main:main"], { cwd: work });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "delivery-7", name: "issues", payload: labeled() } as never);
    await idle();
    expect(state.pulls).toEqual([]);
    expect(state.comments[0]?.body).toMatch(/Stopped without a fix \(`exhausted`\): none of the \d+ template edits/);
  });
});

describe("memory of merged fixes", () => {
  it("remembers the plan of a merged bot PR and offers it to the next job's plan stage", async () => {
    scriptAnswers([...LPW_FIXED, ...LPW_FIXED]);
    const memory = new MemoryPool(":memory:");
    const { probot, idle } = await startApp({ llm: true, memory });
    await probot.receive({ id: "m-1", name: "issues", payload: labeled() } as never);
    await idle();
    const pr = state.pulls[0];
    if (!pr) throw new Error("no PR");

    const closed = webhookExample("pull_request", "closed") as Record<string, unknown> & {
      repository: Record<string, unknown>;
      pull_request: Record<string, unknown>;
    };
    closed.repository = {
      ...closed.repository,
      name: "shop",
      full_name: "octo-org/shop",
      owner: { ...(closed.repository.owner as object), login: "octo-org" },
    };
    closed.pull_request = {
      ...closed.pull_request,
      number: pr.number,
      merged: true,
      head: { ...(closed.pull_request.head as object), ref: "autogen/issue-42" },
    };
    closed.installation = { id: 99 };
    await probot.receive({ id: "m-2", name: "pull_request", payload: closed } as never);
    expect(memory.recall({ installation: "99", repository: "octo-org/shop" }, "discount subtracted")[0]?.plan).toEqual([
      "Sum the prices",
      "Subtract the discount from the sum",
    ]);

    const next = { title: "Coupon discount added to the total", body: "The discount should reduce the total." };
    state.issues = { ...state.issues, 43: next };
    await probot.receive({ id: "m-3", name: "issues", payload: labeled(undefined, 43, next) } as never);
    await idle();
    const plans = llmPlanPrompts();
    expect(plans.at(-1)).toContain(
      "Example 1: Discount is added instead of subtracted\nPlan:\n1. Sum the prices\n2. Subtract the discount from the sum",
    );
    // What was reused from an earlier run is named where the reviewer reads (the first PR had nothing to reuse).
    expect(pr.body).not.toContain("Reused from earlier runs");
    expect(state.pulls[1]?.body).toMatch(
      /Reused from earlier runs: the plan stage was shown the plans of 1 earlier fix\(es\) in this repository \(memory\): "Discount is added instead of subtracted" \(similarity \d\.\d\d\)\./,
    );
  });
});

describe("giving up with pullRequest.onGiveUp: draft-pr", () => {
  it("opens a draft PR holding the closest attempt, saying it does not pass", async () => {
    const config = `${CONFIG}pullRequest:\n  onGiveUp: draft-pr\n`;
    const work = await gitRepo({
      ".github/autogen.yml": config,
      "calc.py": "def f(x):\n    return x + 2\n",
      "test_calc.py":
        "from calc import f\n\n\ndef test_small():\n    assert f(2) == 3\n\n\ndef test_large():\n    assert f(5) == 10\n",
    });
    execFileSync("git", ["push", "--quiet", "--force", remote, "main:main"], { cwd: work });
    state.files[".github/autogen.yml"] = config;
    const { probot, idle } = await startApp();
    await probot.receive({ id: "g-1", name: "issues", payload: labeled() } as never);
    await idle();
    expect(state.pulls).toHaveLength(1);
    expect(state.pulls[0]).toMatchObject({ draft: true, head: "autogen/issue-42" });
    expect(state.pulls[0]?.body).toMatch(
      /^> \*\*Draft: no fix was found\.\*\* This branch holds the closest attempt \(1 visible test\(s\) passing, 1 failing\)/,
    );
    expect(state.pulls[0]?.body).toContain("Refs #42");
    expect(state.pulls[0]?.body).not.toContain("Closes #42");
    expect(remoteFile("autogen/issue-42", "calc.py")).not.toBe("def f(x):\n    return x + 2\n");
    expect(
      execFileSync("git", ["--git-dir", remote, "log", "-1", "--format=%s", "autogen/issue-42"], {
        encoding: "utf8",
      }).trim(),
    ).toBe("Closest attempt for #42 (does not pass the tests)");
    expect(state.comments[0]?.body).toContain(
      "No fix found; the closest attempt is in the draft https://github.com/o/r/pull/",
    );
  });
});

describe("comments and configuration", () => {
  function comment(body: string, sender = { login: "maintainer", id: 7, type: "User" }) {
    const payload = webhookExample("issue_comment", "created") as Record<string, unknown> & {
      repository: Record<string, unknown>;
      issue: Record<string, unknown>;
      comment: Record<string, unknown>;
    };
    payload.repository = {
      ...payload.repository,
      name: "shop",
      full_name: "octo-org/shop",
      default_branch: "main",
      owner: { ...(payload.repository.owner as object), login: "octo-org" },
    };
    payload.issue = { ...payload.issue, number: 42, title: ISSUE.title, body: ISSUE.body };
    payload.comment = { ...payload.comment, body };
    payload.sender = { ...(payload.sender as object), ...sender };
    payload.installation = { id: 99 };
    return payload;
  }

  it("/autogen plan posts the verified plan and changes no code", async () => {
    scriptAnswers(LPW_ANSWERS.slice(0, 2));
    const { probot, idle } = await startApp({ llm: true });
    await probot.receive({ id: "c-1", name: "issue_comment", payload: comment("/autogen plan") } as never);
    await idle();
    expect(state.pulls).toEqual([]);
    expect(remoteBranches()).toEqual(["main"]);
    expect(state.comments[0]?.body).toContain(
      "The plan (verified on the visible tests; no code was changed):\n\n1. Sum the prices\n2. Subtract the discount from the sum",
    );
  });

  it("/autogen retry <hint> passes the hint to the engine", async () => {
    const answers = LPW_FIXED.map((a) => ({ ...a }));
    const { requests } = scriptAnswers(answers);
    const { probot, idle } = await startApp({ llm: true });
    await probot.receive({
      id: "c-2",
      name: "issue_comment",
      payload: comment("/autogen retry the discount is a flat amount"),
    } as never);
    await idle();
    expect(requests[0]?.messages[1]?.content).toContain("Hint from maintainer: the discount is a flat amount");
    expect(state.pulls).toHaveLength(1);
  });

  it("/autogen stop from a maintainer cancels the running job", async () => {
    const { probot, idle } = await startApp();
    await probot.receive({ id: "c-3", name: "issues", payload: labeled() } as never);
    await probot.receive({ id: "c-4", name: "issue_comment", payload: comment("/autogen stop") } as never);
    await idle();
    expect(state.pulls).toEqual([]);
    expect(state.comments[0]?.body).toMatch(/Cancelled: stopped by maintainer\.|Cancelled: the issue/);
  });

  it("an invalid config gets one clear comment on the issue and no work", async () => {
    state.files[".github/autogen.yml"] = "lable: autogen\nbudgets:\n  dollars: -1\n";
    const { probot, idle } = await startApp();
    await probot.receive({ id: "c-5", name: "issues", payload: labeled() } as never);
    await idle();
    expect(state.comments).toHaveLength(1);
    expect(state.comments[0]?.body).toBe(
      'autogen-bot did not start: `.github/autogen.yml` is invalid.\n\n- budgets.dollars: must be at least 0, got -1\n- unknown key "lable" (did you mean "label"?)',
    );
    expect(github.calls("repos/get-collaborator-permission-level")).toHaveLength(1);
    expect(await store.queueDepth()).toEqual({ queued: 0, running: 0 });
  });
});

describe("review feedback on the bot's own pull request", () => {
  it("iterates on that PR: works from its branch, pushes on top, updates the same PR", async () => {
    scriptAnswers([
      ...LPW_FIXED,
      {
        stage: "reproduce",
        content: {
          path: "tests/test_review.py",
          content:
            "import pytest\n\nfrom shop.cart import total\n\n\ndef test_negative_discount_is_refused():\n    with pytest.raises(ValueError):\n        total([10], -5)\n",
          testId: "tests/test_review.py::test_negative_discount_is_refused",
          expectedFailure: "DID NOT RAISE",
          // With the test: the behaviour calls for the review's fix (no call of their own after it).
          behaviour: BEHAVIOUR.content,
        },
      },
      {
        stage: "plan",
        content: { steps: ["Refuse a negative discount with ValueError", "Sum the prices and subtract the discount"] },
      },
      {
        stage: "verify-plan",
        content: {
          tests: [
            {
              test: "test_negative_discount_is_refused",
              steps: [{ step: 1, value: "ValueError" }],
              derived: "ValueError",
              expected: "ValueError",
              matches: true,
            },
          ],
        },
      },
      {
        stage: "implement",
        content: {
          edits: [
            {
              kind: "replace",
              path: "shop/cart.py",
              search: "    subtotal = sum(prices)\n",
              replace:
                "    if discount < 0:\n        raise ValueError('discount must not be negative')\n    subtotal = sum(prices)\n",
            },
          ],
        },
      },
    ]);
    const { probot, idle } = await startApp({ llm: true });
    await probot.receive({ id: "r-1", name: "issues", payload: labeled() } as never);
    await idle();
    const pr = state.pulls[0];
    if (!pr) throw new Error("no PR from the label flow");
    const firstCommit = execFileSync("git", ["--git-dir", remote, "rev-parse", "autogen/issue-42"], {
      encoding: "utf8",
    }).trim();

    const payload = webhookExample("pull_request_review", "submitted") as Record<string, unknown> & {
      repository: Record<string, unknown>;
      pull_request: Record<string, unknown>;
      review: Record<string, unknown>;
    };
    payload.repository = {
      ...payload.repository,
      name: "shop",
      full_name: "octo-org/shop",
      default_branch: "main",
      owner: { ...(payload.repository.owner as object), login: "octo-org" },
    };
    payload.pull_request = {
      ...payload.pull_request,
      number: pr.number,
      title: pr.title,
      body: pr.body,
      head: { ...(payload.pull_request.head as object), ref: "autogen/issue-42", repo: { full_name: "octo-org/shop" } },
    };
    payload.review = {
      ...payload.review,
      state: "changes_requested",
      body: "Negative discounts must be rejected with a ValueError.",
    };
    payload.sender = { login: "maintainer", id: 7, type: "User" };
    payload.installation = { id: 99 };
    await probot.receive({ id: "r-2", name: "pull_request_review", payload } as never);
    await idle();

    expect(state.pulls).toHaveLength(1);
    expect(github.calls("pulls/update").map((r) => r.path)).toEqual([`/repos/octo-org/shop/pulls/${pr.number}`]);
    expect(
      execFileSync("git", ["--git-dir", remote, "rev-parse", "autogen/issue-42~1"], { encoding: "utf8" }).trim(),
    ).toBe(firstCommit);
    const cart = remoteFile("autogen/issue-42", "shop/cart.py");
    expect(cart).toContain("raise ValueError");
    expect(cart).toContain("return subtotal - discount");
    expect(remoteFile("autogen/issue-42", "tests/test_review.py")).toContain("test_negative_discount_is_refused");
    expect(state.pulls[0]?.body).toContain(
      "Reproduction test `tests/test_review.py::test_negative_discount_is_refused`",
    );
    // The review's fix ran the calls that came with its reproduction test.
    expect(state.pulls[0]?.body).toContain(
      "The model wrote 2 call(s) of `shop.cart` from the issue with the reproduction test, before any fix existed;",
    );
    expect(state.pulls[0]?.body).toContain("Closes #42");
    const onPr = state.comments.filter((c) => c.number === pr.number);
    expect(onPr).toHaveLength(1);
    expect(onPr[0]?.body).toContain(`Updated https://github.com/o/r/pull/${pr.number}`);
  });
});

describe("GitHub failing while a job runs", () => {
  const quickRetry: JobRetryPolicy = { maxAttempts: 3, backoffMs: () => 10 };
  const commitsOnBranch = () =>
    execFileSync("git", ["--git-dir", remote, "rev-list", "--count", "main..autogen/issue-42"], {
      encoding: "utf8",
    }).trim();

  it("runs the job again from its checkpoint after 502s: the fix pushed once, one PR, one status comment", async () => {
    let failures = 2;
    state.fault = (operation) => (operation === "pulls/create" && failures-- > 0 ? 502 : undefined);
    const { probot, idle } = await startApp({ jobRetry: quickRetry });
    await probot.receive({ id: "delivery-502", name: "issues", payload: labeled() } as never);
    await idle();

    expect(github.calls("pulls/create")).toHaveLength(3);
    expect(state.pulls).toHaveLength(1);
    expect(commitsOnBranch()).toBe("1");
    expect(state.comments).toHaveLength(1);
    expect(state.comments[0]?.body).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number}`);
    const job = await store.latest("octo-org", "shop", 42);
    expect(job).toMatchObject({ state: "done", error: null });
    expect(job?.checkpoint.githubFailures).toBe(2);
  });

  it("ends the job failed, saying GitHub kept answering 502, once the runs are spent", async () => {
    state.fault = (operation) => (operation === "pulls/create" ? 502 : undefined);
    const { probot, idle } = await startApp({ jobRetry: quickRetry });
    await probot.receive({ id: "delivery-502-forever", name: "issues", payload: labeled() } as never);
    await idle();

    expect(github.calls("pulls/create")).toHaveLength(3);
    expect(state.pulls).toEqual([]);
    expect(commitsOnBranch()).toBe("1");
    const job = await store.latest("octo-org", "shop", 42);
    expect(job?.state).toBe("failed");
    expect(job?.error).toMatch(/^GitHub answered 502 \(.*\); gave up after 3 attempts$/);
    expect(state.comments).toHaveLength(1);
    expect(state.comments[0]?.body).toContain("Stopped: GitHub answered 502");
    expect(state.comments[0]?.body).toContain("gave up after 3 attempts");
    expect(await store.queueDepth()).toEqual({ queued: 0, running: 0 });
  });
});
