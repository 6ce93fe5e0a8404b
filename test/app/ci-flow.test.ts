// End to end, a red build on a pull request: real `workflow_run.completed` /
// `check_suite.completed` / `issue_comment.created` payloads (@octokit/webhooks-examples,
// adapted) into a real Probot; GitHub's REST API faked at the HTTP level with every
// request checked against its published description; the Actions runner played by
// test/support/fake-actions-runner.ts, which runs pytest for real on the pushed commit
// and returns its log (runner format) and zipped JUnit report through GitHub's redirects.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot, ProbotOctokit } from "probot";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { MemoryPool } from "../../src/engine/memory/memory-pool.ts";
import type { LlmClient } from "../../src/llm/llm-client.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeActions, fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { ciRun, runDispatch, runnerLog, runTestsLikeActions } from "../support/fake-actions-runner.ts";
import { gitRepo } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const CART_OK = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal - discount\n";
const CART_PR =
  "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n\n\ndef bulk_total(orders):\n    return [total(p, d) for p, d in orders]\n";
const TESTS =
  "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n";
const LEGACY = "def test_legacy_rounding():\n    assert round(2.675, 2) == 2.68\n";
const FLAKY =
  "import pathlib\n\n\ndef test_sometimes():\n    counter = pathlib.Path(__file__).parent / 'runs.txt'\n    n = int(counter.read_text()) + 1 if counter.exists() else 1\n    counter.write_text(str(n))\n    assert n % 2 == 0\n";
/** A model's verified plan for the broken discount, and its implementation (LPW stages). */
const PLAN_ANSWERS = [
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
  { stage: "check-verification", content: { ok: true, problems: [] } },
];
const IMPLEMENT_ANSWER = {
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
/** The calls the model writes once a fix is found (the behaviour table). */
const BEHAVIOUR = {
  stage: "behaviour-calls",
  content: {
    module: "shop.cart",
    calls: [
      { call: "total([10, 20], 5)", expected: "25", why: "the test the pull request broke" },
      { call: "bulk_total([([1, 2], 0)])", expected: "unspecified", why: "the new function must behave as before" },
    ],
  },
};
const MAIN = { "shop/__init__.py": "", "shop/cart.py": CART_OK, "tests/test_cart.py": TESTS };
const config = (extra = "") =>
  `triggers:\n  ciFailure: auto\ntest:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n${extra}`;

let root: string;
let work: string;
let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
const network = networkGuard();

const sh = (dir: string, ...args: string[]) => execFileSync("git", ["-C", dir, ...args], { encoding: "utf8" }).trim();
const commit = (dir: string, message: string) =>
  sh(
    dir,
    "-c",
    "user.name=Dev",
    "-c",
    "user.email=dev@example.invalid",
    "commit",
    "--quiet",
    "--all",
    "--message",
    message,
  );
const remoteBranches = () =>
  execFileSync("git", ["--git-dir", remote, "branch", "--format=%(refname:short)"], { encoding: "utf8" })
    .trim()
    .split("\n");
const remoteFile = (ref: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${ref}:${path}`], { encoding: "utf8" });

/** main, then a pull request branch with `files` changed, pushed to the bare remote (for a fork: only as refs/pull/7/head). */
async function repository(
  main: Record<string, string>,
  pr: Record<string, string>,
  options: { fork?: boolean; extraConfig?: string } = {},
) {
  const text = config(options.extraConfig);
  work = await gitRepo({ ...main, ".github/autogen.yml": text });
  remote = join(root, "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  const baseSha = sh(work, "rev-parse", "HEAD");
  sh(work, "switch", "--quiet", "--create", "feature/bulk");
  for (const [name, content] of Object.entries(pr)) await writeFile(join(work, name), content);
  sh(work, "add", "--all");
  commit(work, "Add bulk totals");
  const headSha = sh(work, "rev-parse", "HEAD");
  sh(work, "push", "--quiet", remote, options.fork ? "HEAD:refs/pull/7/head" : "feature/bulk");
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

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-ci-"));
  store = new JobStore(join(root, "jobs.db"));
});

/** Every worker pool a test started: stopped after it, so a job left running (a test that timed out) cannot call GitHub during the next test. */
const pools: WorkerPool[] = [];

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

async function startApp(
  options: { actionsTimeoutMs?: number; pollMs?: number; memory?: MemoryPool; llm?: () => LlmClient } = {},
) {
  let pool: WorkerPool | undefined;
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: ProbotOctokit.defaults({ retry: { enabled: false }, throttle: { enabled: false } }),
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

const repo = (payload: Record<string, unknown>) => ({
  ...(payload.repository as object),
  name: "shop",
  full_name: "octo-org/shop",
  default_branch: "main",
  owner: { ...(payload.repository as { owner: object }).owner, login: "octo-org" },
});

function workflowRunCompleted(
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

function prComment(body: string, sender = "maintainer") {
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

const statusComment = () => state.comments.find((c) => c.number === 7)?.body ?? "";

// Each test clones, runs pytest several times and pushes: minutes are plenty on a busy machine.
describe("a red build on a pull request", { timeout: 300_000 }, () => {
  it("caused by the change: evidence from the run, attribution, fix verified in Actions, PR into the head branch", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const memory = new MemoryPool(":memory:");
    const { probot, idle } = await startApp({ memory });
    await probot.receive({ id: "ci-1", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();

    // Evidence: the failing job's log (through the redirect) and the JUnit artifact.
    expect(
      github.calls("actions/list-jobs-for-workflow-run").some((r) => r.path.includes(`/runs/${red.id}/jobs`)),
    ).toBe(true);
    expect(github.calls("actions/download-job-logs-for-workflow-run").length).toBeGreaterThan(0);
    expect(github.calls("actions/download-artifact").length).toBeGreaterThan(0);
    const status = statusComment();
    expect(status).toContain("✅ CI evidence: 1 failed run(s), 1 failing test(s) (artifact)");
    expect(status).toContain("✅ Attribution: 1 caused by the change, 0 pre-existing, 0 flaky");
    expect(status).toContain(
      "✅ Configuration: strategy template (no model endpoint configured), tests pytest, verifier: GitHub Actions (autogen-verify.yml)",
    );
    // Every verification ran in Actions, dispatched from the default branch's workflow.
    expect(actions.dispatches.length).toBeGreaterThan(1);
    for (const d of actions.dispatches) {
      expect(d).toMatchObject({ workflow: "autogen-verify.yml", ref: "main" });
      for (const ref of JSON.parse(d.inputs.refs ?? "[]") as string[])
        expect(ref).toMatch(/^autogen\/verify-job-1-\d+$/);
    }
    // Base and head went in one dispatch, as two matrix jobs; the template's four parallel candidates in another.
    const matrixSizes = actions.dispatches.map((d) => (JSON.parse(d.inputs.refs ?? "[]") as string[]).length);
    expect(matrixSizes).toContain(2);
    expect(matrixSizes).toContain(4);

    const branch = `autogen/fix-7-${headSha.slice(0, 7)}`;
    expect(state.pulls).toHaveLength(1);
    expect(state.pulls[0]).toMatchObject({ head: branch, base: "feature/bulk" });
    expect(state.pulls[0]?.body).toContain("Repairs the red build of #7");
    expect(state.pulls[0]?.body).toContain(
      "Regression gate (full suite): before 1 passed, 1 failed; after 2 passed, 0 failed.",
    );
    expect(remoteFile(branch, "shop/cart.py")).toContain("return subtotal - discount");
    expect(remoteFile(branch, "shop/cart.py")).toContain("def bulk_total");
    // The repair is the App's bot's commit on the PR's head, made through the Git Data API (never pushed).
    const bot = "autogen-test[bot] <98765+autogen-test[bot]@users.noreply.github.com>";
    expect(
      execFileSync("git", ["--git-dir", remote, "log", "-1", "--format=%an <%ae>%n%cn <%ce>%n%P", branch], {
        encoding: "utf8",
      }),
    ).toBe(`${bot}\n${bot}\n${headSha}\n`);
    expect(github.refUpdates(`refs/heads/${branch}`)).toEqual(["fake-github git/create-ref"]);
    expect(status).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number} into \`feature/bulk\``);
    // The throwaway verification branches were published and deleted through the API, and are gone.
    expect(
      github
        .calls("git/create-ref")
        .map((r) => String(r.body?.ref))
        .filter((r) => r.startsWith("refs/heads/autogen/verify-")).length,
    ).toBeGreaterThanOrEqual(2);
    expect(github.calls("git/delete-ref").length).toBeGreaterThanOrEqual(2);
    expect(remoteBranches().sort()).toEqual([branch, "feature/bulk", "main"]);
    expect((await store.latest("octo-org", "shop", 7))?.state).toBe("done");

    // Merged: the repair is remembered for this repository's later plans.
    const closed = webhookExample("pull_request", "closed") as Record<string, unknown> & {
      pull_request: Record<string, unknown>;
    };
    closed.repository = repo(closed);
    closed.pull_request = {
      ...closed.pull_request,
      number: state.pulls[0]?.number,
      merged: true,
      head: { ...(closed.pull_request.head as object), ref: branch },
    };
    closed.installation = { id: 99, node_id: "MDIz" };
    await probot.receive({ id: "ci-1-merged", name: "pull_request", payload: closed } as never);
    const recalled = memory.recall(
      { installation: "99", repository: "octo-org/shop" },
      "test_total_applies_discount cart",
    );
    expect(recalled.map((r) => r.task)).toEqual([
      expect.stringContaining("A pull request broke tests: tests/test_cart.py::test_total_applies_discount"),
    ]);
    expect(recalled[0]?.plan).toEqual(["arithmetic-swap: `+` → `-`"]);
  });

  it("caused and pre-existing failures together: only the caused one is repaired, the other is named", async () => {
    const main = {
      "shop/__init__.py": "",
      "shop/cart.py": CART_OK,
      "tests/test_cart.py": TESTS,
      "tests/test_legacy.py": LEGACY,
    };
    const { headSha, actions } = await repository(
      main,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\n" },
    );
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-17", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(statusComment()).toContain("✅ Attribution: 1 caused by the change, 1 pre-existing, 0 flaky");
    const body = state.pulls[0]?.body ?? "";
    expect(body).toContain(
      "Not repaired, because the pull request did not cause them:\n- `tests/test_legacy.py::test_legacy_rounding`: pre-existing (base fail, fail, fail; head fail, fail, fail)",
    );
    expect(body).toContain("| `tests/test_cart.py::test_total_applies_discount` | ❌ fail | ✅ pass |");
    expect(body).not.toContain("| `tests/test_legacy.py::test_legacy_rounding` | ❌ fail | ✅ pass |");
    expect(remoteFile(`autogen/fix-7-${headSha.slice(0, 7)}`, "tests/test_legacy.py")).toBe(LEGACY);
  });

  it("with a model (LPW): the plan is asked for the tests the PR broke, with what CI showed", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\nstrategy:\n  templateFirstPass: false\n" },
    );
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const scripted = scriptAnswers([...PLAN_ANSWERS, IMPLEMENT_ANSWER, BEHAVIOUR]);
    const { probot, idle } = await startApp({ llm: () => testLlm() });
    await probot.receive({ id: "ci-20", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const planPrompt = scripted.requests[0]?.messages.map((m) => m.content).join("\n") ?? "";
    expect(planPrompt).toContain("broke these tests (they pass at the merge base");
    expect(planPrompt).toContain("tests/test_cart.py::test_total_applies_discount");
    expect(planPrompt).toContain("What CI showed:");
    expect(planPrompt).toMatch(/assert 35 == 25/);
    expect(state.pulls[0]).toMatchObject({ head: `autogen/fix-7-${headSha.slice(0, 7)}`, base: "feature/bulk" });
    expect(state.pulls[0]?.body).toContain("| test_total_applies_discount | 25 | 25 | ✅ |");
    expect(state.pulls[0]?.body).toContain(
      "| ✅ | <code>total([10, 20], 5)</code> | <code>35</code> | <code>25</code> | <code>25</code> |",
    );
    expect(remoteFile(`autogen/fix-7-${headSha.slice(0, 7)}`, "shop/cart.py")).toContain("def bulk_total");
  });

  it("a review on the repair PR is feedback: another iteration on that branch, the PR still only refers to #7", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\nstrategy:\n  templateFirstPass: false\n" },
    );
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    scriptAnswers([
      ...PLAN_ANSWERS,
      IMPLEMENT_ANSWER,
      BEHAVIOUR,
      BEHAVIOUR,
      {
        stage: "reproduce",
        content: {
          path: "tests/test_bulk.py",
          content:
            "from shop.cart import bulk_total\n\n\ndef test_bulk_total_of_nothing():\n    assert bulk_total([]) == []\n\n\ndef test_bulk_total_skips_none():\n    assert bulk_total([None, ([1], 0)]) == [1]\n",
          testId: "tests/test_bulk.py::test_bulk_total_skips_none",
          expectedFailure: "TypeError",
        },
      },
      { stage: "plan", content: { steps: ["Skip orders that are None", "Total the others"] } },
      {
        stage: "verify-plan",
        content: {
          tests: [
            {
              test: "test_bulk_total_skips_none",
              steps: [
                { step: 1, value: "[([1], 0)]" },
                { step: 2, value: "[1]" },
              ],
              derived: "[1]",
              expected: "[1]",
              matches: true,
            },
          ],
        },
      },
      { stage: "check-verification", content: { ok: true, problems: [] } },
      {
        stage: "implement",
        content: {
          edits: [
            {
              kind: "replace",
              path: "shop/cart.py",
              search: "    return [total(p, d) for p, d in orders]",
              replace: "    return [total(p, d) for p, d in (o for o in orders if o is not None)]",
            },
          ],
        },
      },
    ]);
    const { probot, idle } = await startApp({ llm: () => testLlm() });
    await probot.receive({ id: "ci-23", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const branch = `autogen/fix-7-${headSha.slice(0, 7)}`;
    const pr = state.pulls[0];
    if (!pr) throw new Error("no repair PR");
    const first = execFileSync("git", ["--git-dir", remote, "rev-parse", branch], { encoding: "utf8" }).trim();

    const payload = webhookExample("pull_request_review", "submitted") as Record<string, unknown> & {
      pull_request: Record<string, unknown>;
      review: Record<string, unknown>;
    };
    payload.repository = repo(payload);
    payload.pull_request = {
      ...payload.pull_request,
      number: pr.number,
      title: pr.title,
      body: pr.body,
      head: { ...(payload.pull_request.head as object), ref: branch, repo: { full_name: "octo-org/shop" } },
    };
    payload.review = { ...payload.review, state: "changes_requested", body: "bulk_total should skip None orders." };
    payload.sender = { login: "maintainer", id: 7, type: "User" };
    payload.installation = { id: 99 };
    await probot.receive({ id: "ci-24", name: "pull_request_review", payload } as never);
    await idle();

    expect(state.pulls).toHaveLength(1);
    expect(execFileSync("git", ["--git-dir", remote, "rev-parse", `${branch}~1`], { encoding: "utf8" }).trim()).toBe(
      first,
    );
    expect(remoteFile(branch, "shop/cart.py")).toContain("if o is not None");
    expect(remoteFile(branch, "shop/cart.py")).toContain("return subtotal - discount");
    expect(state.pulls[0]?.body).toMatch(/^Repairs the red build of #7; updated after review\./);
    expect(state.pulls[0]?.body).toContain("Refs #7");
    expect(state.pulls[0]?.body).not.toContain("Closes #7");
  });

  it("/autogen plan on a red pull request posts the verified repair plan and changes nothing", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\n" },
    );
    await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const scripted = scriptAnswers(PLAN_ANSWERS);
    const before = execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname) %(objectname)"], {
      encoding: "utf8",
    });
    const { probot, idle } = await startApp({ llm: () => testLlm() });
    await probot.receive({ id: "ci-21", name: "issue_comment", payload: prComment("/autogen plan") } as never);
    await idle();
    const status = statusComment();
    expect(scripted.requests[0]?.messages.map((m) => m.content).join("\n")).toContain("broke these tests");
    expect(status).toContain("The plan (verified on the visible tests; no code was changed):");
    expect(status).toContain("2. Subtract the discount from the sum, as before the pull request");
    expect(status).toContain("| test_total_applies_discount | 25 | 25 | ✅ |");
    expect(state.pulls).toEqual([]);
    expect(
      execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname) %(objectname)"], {
        encoding: "utf8",
      }),
    ).toBe(before);
  });

  it("failing tests CI names that cannot be run here: said so, no change", async () => {
    const { headSha, actions } = await repository(MAIN, { "README.md": "Bulk.\n" }, { extraConfig: "verify: local\n" });
    // CI reported a test this checkout does not have (say, from a generated suite).
    const dir = await mkdtemp(join(tmpdir(), "autogen-report-"));
    await writeFile(
      join(dir, "junit.xml"),
      '<testsuites><testsuite name="pytest"><testcase classname="tests.test_generated" name="test_case_17"><failure message="boom">E boom</failure></testcase></testsuite></testsuites>',
    );
    execFileSync("zip", ["-q", "-j", "r.zip", "junit.xml"], { cwd: dir });
    const red = await ciRun(
      actions,
      remote,
      { sha: headSha, branch: "feature/bulk", number: 7 },
      {
        log: runnerLog(["##[error]Process completed with exit code 1."]),
        zip: await readFile(join(dir, "r.zip")),
        passed: false,
      },
    );
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-22", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(statusComment()).toContain(
      "The tests that failed in CI (`tests/test_generated.py::test_case_17`) could not be run by local sandbox (`verify: local`) at the merge base or the head",
    );
    expect(state.pulls).toEqual([]);
  });

  it("failing on the base too: one explanation, no change, no PR", async () => {
    const main = {
      "shop/__init__.py": "",
      "shop/cart.py": CART_OK,
      "tests/test_cart.py": TESTS,
      "tests/test_legacy.py": LEGACY,
    };
    const { headSha, actions } = await repository(main, { "README.md": "Bulk totals.\n" });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const job = actions.jobs.find((j) => j.run_id === red.id);
    if (job)
      actions.annotations[job.id] = [
        {
          path: "tests/test_legacy.py",
          start_line: 2,
          annotation_level: "failure",
          title: "test_legacy_rounding",
          message: "assert 2.67 == 2.68",
        },
      ];
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-2", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const status = statusComment();
    // The job's check-run annotations are part of the evidence shown.
    expect(status).toContain("1 annotation(s): tests/test_legacy.py:2 assert 2.67 == 2.68");
    expect(status).toContain("Annotations:\ntests/test_legacy.py:2: test_legacy_rounding: assert 2.67 == 2.68");
    expect(status).toContain("The failing tests were not caused by this pull request** (1 pre-existing)");
    expect(status).toMatch(
      /\| `tests\/test_legacy.py::test_legacy_rounding` \| fails on the base too \(pre-existing\) \| fail, fail, fail \| fail, fail, fail \|/,
    );
    expect(status).toContain("Evidence from CI");
    expect(state.pulls).toEqual([]);
    expect(remoteBranches().sort()).toEqual(["feature/bulk", "main"]);
  });

  it("flaky: different results on identical reruns: one explanation, no PR", async () => {
    const main = {
      "shop/__init__.py": "",
      "shop/cart.py": CART_OK,
      "tests/test_cart.py": TESTS,
      "tests/test_flaky.py": FLAKY,
      ".gitignore": "runs.txt\n",
    };
    const { headSha, actions } = await repository(
      main,
      { "README.md": "Bulk totals.\n" },
      { extraConfig: "verify: local\n" },
    );
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-3", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const status = statusComment();
    expect(status).toContain("verifier: local sandbox (`verify: local`)");
    expect(status).toContain("(1 flaky)");
    expect(status).toMatch(
      /\| `tests\/test_flaky.py::test_sometimes` \| flaky \(different results on identical reruns\) \| fail, pass, fail \| fail, pass, fail \|/,
    );
    expect(state.pulls).toEqual([]);
    expect(actions.dispatches).toEqual([]);
  });

  it("a dispatch answered 204 is found again by the correlation id in its run-name", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    actions.returnRunDetails = false;
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-4", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const lookups = github.calls("actions/list-workflow-runs");
    expect(lookups.length).toBeGreaterThanOrEqual(actions.dispatches.length);
    expect(lookups[0]?.path).toMatch(/\/actions\/workflows\/autogen-verify\.yml\/runs\?.*event=workflow_dispatch/);
    expect(state.pulls).toHaveLength(1);
    expect(remoteFile(`autogen/fix-7-${headSha.slice(0, 7)}`, "shop/cart.py")).toContain("return subtotal - discount");
  });

  it("the completion webhook of a verification run wakes the job without waiting for its next poll", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    // Polls ten minutes apart: only the webhook can let this test finish in time.
    const { probot, idle } = await startApp({ pollMs: 600_000 });
    actions.onDispatch = (dispatch, run) =>
      void runDispatch(actions, remote, dispatch, run).then(() => {
        const payload = workflowRunCompleted({ id: run.id, head_sha: run.head_sha, pull_requests: [] });
        payload.workflow = { ...payload.workflow, path: ".github/workflows/autogen-verify.yml" };
        payload.workflow_run = {
          ...payload.workflow_run,
          path: ".github/workflows/autogen-verify.yml",
          event: "workflow_dispatch",
          conclusion: run.conclusion,
          head_branch: "main",
        };
        return probot.receive({ id: `wake-${run.id}`, name: "workflow_run", payload } as never);
      });
    await probot.receive({ id: "ci-16", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(state.pulls).toHaveLength(1);
    expect(actions.dispatches.length).toBeGreaterThan(1);
  });

  it("a job interrupted after its attribution and repair resumes from the checkpoint: nothing is verified again", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const first = await startApp();
    await first.probot.receive({ id: "ci-18", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await first.idle();
    const finished = await store.latest("octo-org", "shop", 7);
    const dispatched = actions.dispatches.length;
    // What a crash leaves: a running job whose attribution and outcome are checkpointed, not yet pushed.
    const { attribution, outcome } = finished?.checkpoint ?? {};
    const queued = await store.enqueue({
      deliveryId: "ci-19",
      installationId: 99,
      owner: "octo-org",
      repo: "shop",
      number: 7,
      kind: "ci",
      requester: "maintainer",
      requesterId: 7,
      snapshot: { title: "Red build on #7", body: "" },
      checkpoint: { headSha, runId: red.id, attribution, outcome },
    });
    if (!queued.queued) throw new Error("not queued");
    await store.claimNext(5);
    // The crashed run left one of its verification branches behind.
    sh(work, "push", "--quiet", remote, `HEAD:refs/heads/autogen/verify-job-${queued.job.id}-3`);
    const restarted = await startApp();
    await restarted.idle();
    expect((await store.get(queued.job.id))?.state).toBe("done");
    expect(actions.dispatches).toHaveLength(dispatched);
    expect(remoteBranches().filter((b) => b.startsWith("autogen/verify-"))).toEqual([]);
    // Found by git/list-matching-refs and deleted by git/delete-ref.
    expect(github.calls("git/delete-ref").map((r) => decodeURIComponent(r.path))).toContain(
      `/repos/octo-org/shop/git/refs/heads/autogen/verify-job-${queued.job.id}-3`,
    );
    expect(state.pulls).toHaveLength(1);
    expect(remoteFile(`autogen/fix-7-${headSha.slice(0, 7)}`, "shop/cart.py")).toContain("return subtotal - discount");
  });

  it("a verification run that never completes: timeout, the run is cancelled, the status says so", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    actions.onDispatch = () => undefined; // queued forever
    const { probot, idle } = await startApp({ actionsTimeoutMs: 1500 });
    await probot.receive({ id: "ci-5", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(actions.cancelled).toEqual([actions.dispatches[0]?.runId]);
    expect(statusComment()).toMatch(
      /Stopped by an error: the verification run https:\/\/github.com\/octo-org\/shop\/actions\/runs\/\d+ did not complete within 2 s; it was cancelled/,
    );
    expect(state.pulls).toEqual([]);
    expect((await store.latest("octo-org", "shop", 7))?.state).toBe("failed");
    expect(remoteBranches().sort()).toEqual(["feature/bulk", "main"]);
  });

  it("from a fork: the patch in a comment, no push, nothing dispatched", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR }, { fork: true });
    const pr = state.prs?.[7];
    if (pr) pr.title = "Bulk totals, cc @octo-org/everyone";
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7, fork: true });
    const before = execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname) %(objectname)"], {
      encoding: "utf8",
    });
    const { probot, idle } = await startApp();
    // GitHub leaves a fork's pull requests out of the run: they are found by the commit.
    await probot.receive({ id: "ci-6", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(github.calls("repos/list-pull-requests-associated-with-commit").map((r) => r.path)).toEqual([
      `/repos/octo-org/shop/commits/${headSha}/pulls?per_page=100&page=1`,
    ]);
    const status = statusComment();
    expect(status).toContain("This pull request comes from a fork, so autogen-bot does not push to it");
    expect(status).toContain("-    return subtotal + discount\n+    return subtotal - discount");
    expect(status).toContain("verifier: local sandbox (a fork's code is never pushed or dispatched)");
    // A contributor's text quoted by the bot notifies nobody.
    expect(status).toContain("Bulk totals, cc @\u200bocto-org/everyone");
    expect(status).not.toMatch(/(^|[^\u200b])@octo-org\/everyone/);
    expect(actions.dispatches).toEqual([]);
    expect(state.pulls).toEqual([]);
    expect(
      execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname) %(objectname)"], {
        encoding: "utf8",
      }),
    ).toBe(before);
  });

  it("the head moves while the job runs: the job stops and starts again on the new head", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    // The author pushes again (still red) while the first verification runs.
    await writeFile(join(work, "README.md"), "Bulk totals, documented.\n");
    sh(work, "add", "README.md");
    commit(work, "Document bulk totals");
    const newSha = sh(work, "rev-parse", "HEAD");
    // Its CI result, computed ahead so the new run appears at the moment of the push.
    sh(work, "push", "--quiet", remote, "HEAD:refs/staging/next");
    const nextResult = await runTestsLikeActions(remote, newSha);
    const dispatch = actions.onDispatch;
    let moved = false;
    actions.onDispatch = (d, run) => {
      if (!moved) {
        moved = true;
        sh(work, "push", "--quiet", remote, "feature/bulk");
        const pr = state.prs?.[7];
        if (pr) pr.headSha = newSha;
        state.commitPulls = { [newSha]: [7] };
        void ciRun(actions, remote, { sha: newSha, branch: "feature/bulk", number: 7 }, nextResult);
      }
      dispatch?.(d, run);
    };
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-7", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const first = await store.get(1);
    expect(first).toMatchObject({
      state: "cancelled",
      error: `the head of the pull request moved to ${newSha.slice(0, 7)}`,
    });
    const second = await store.latest("octo-org", "shop", 7);
    expect(second).toMatchObject({ id: 2, kind: "ci", state: "done" });
    expect(second?.checkpoint.headSha).toBe(newSha);
    expect(state.pulls).toHaveLength(1);
    expect(state.pulls[0]).toMatchObject({ head: `autogen/fix-7-${newSha.slice(0, 7)}`, base: "feature/bulk" });
    expect(remoteFile(`autogen/fix-7-${newSha.slice(0, 7)}`, "README.md")).toContain("documented");
    expect(remoteBranches()).not.toContain(`autogen/fix-7-${headSha.slice(0, 7)}`);
  });

  it("an infrastructure failure (out of disk, no test failed): one explanation with the log line, no change", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const log = runnerLog([
      "##[group]Run pip install -r requirements.txt",
      "Collecting numpy",
      "ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device",
      "##[error]Process completed with exit code 1.",
    ]);
    await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 }, { log, passed: false });
    const { probot, idle } = await startApp();
    // Asked for on the pull request: the bot finds the red run of its head itself.
    await probot.receive({ id: "ci-8", name: "issue_comment", payload: prComment("/autogen fix") } as never);
    await idle();
    expect(github.calls("actions/list-workflow-runs-for-repo").map((r) => r.path)).toContain(
      `/repos/octo-org/shop/actions/runs?head_sha=${headSha}&per_page=100&page=1`,
    );
    const status = statusComment();
    expect(status).toContain("**Not a code problem: the runner ran out of disk space.**");
    expect(status).toContain("ERROR: Could not install packages due to an OSError: [Errno 28] No space left on device");
    expect(status).toContain("✅ Attribution: infrastructure: out-of-disk");
    expect(actions.dispatches).toEqual([]);
    expect(state.pulls).toEqual([]);
    expect(remoteBranches().sort()).toEqual(["feature/bulk", "main"]);
  });

  it("a test run judged broken (a test file needs a package CI does not install): attributed as infrastructure with the reason, never planned against", async () => {
    const bulkTest =
      "import freezegun\n\nfrom shop.cart import bulk_total\n\n\ndef test_bulk_total():\n    assert bulk_total([([1, 2], 0)]) == [3]\n";
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR, "tests/test_bulk.py": bulkTest });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    // A model is configured: it must not be asked anything (no scripted answer, so any call would fail the test).
    const { probot, idle } = await startApp({ llm: () => testLlm() });
    await probot.receive({ id: "ci-30", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const status = statusComment();
    expect(status).toContain("✅ Attribution: infrastructure: the test command is broken");
    expect(status).toContain(
      "**Not a code problem: the test command is broken** (in CI's test run): tests.test_bulk: ModuleNotFoundError: No module named 'freezegun'.",
    );
    expect(status).toContain("did not plan a change");
    expect(status).not.toContain("Plan:");
    // Nothing verified (no attribution runs dispatched), no branch, no PR.
    expect(actions.dispatches).toEqual([]);
    expect(state.pulls).toEqual([]);
    expect(remoteBranches().sort()).toEqual(["feature/bulk", "main"]);
    expect((await store.latest("octo-org", "shop", 7))?.state).toBe("done");
  });

  it("no per-test results in CI and the suite at the head does not collect: the same infrastructure verdict, from the run here", async () => {
    const bulkTest =
      "import freezegun\n\nfrom shop.cart import bulk_total\n\n\ndef test_bulk_total():\n    assert bulk_total([([1, 2], 0)]) == [3]\n";
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR, "tests/test_bulk.py": bulkTest },
      { extraConfig: "verify: local\n" },
    );
    const red = await ciRun(
      actions,
      remote,
      { sha: headSha, branch: "feature/bulk", number: 7 },
      {
        log: runnerLog([
          "##[group]Run make check",
          "make: *** [check] Error 2",
          "##[error]Process completed with exit code 2.",
        ]),
        passed: false,
      },
    );
    const { probot, idle } = await startApp({ llm: () => testLlm() });
    await probot.receive({ id: "ci-31", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    const status = statusComment();
    expect(status).toContain("✅ Attribution: infrastructure: the test command is broken");
    expect(status).toContain(
      "**Not a code problem: the test command is broken** (the suite run at the head here, local sandbox (`verify: local`)): tests/test_bulk.py::tests.test_bulk: ModuleNotFoundError: No module named 'freezegun'.",
    );
    expect(state.pulls).toEqual([]);
  });

  it("/autogen stop while a verification run is in flight cancels that run", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    actions.onDispatch = () => undefined; // the run stays queued
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-9", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    while (actions.dispatches.length === 0) await new Promise((r) => setTimeout(r, 50));
    await probot.receive({ id: "ci-10", name: "issue_comment", payload: prComment("/autogen stop") } as never);
    await idle();
    expect(actions.cancelled).toEqual([actions.dispatches[0]?.runId]);
    expect(await store.latest("octo-org", "shop", 7)).toMatchObject({
      state: "cancelled",
      error: "stopped by maintainer",
    });
    expect(statusComment()).toContain("Cancelled: stopped by maintainer.");
    expect(state.pulls).toEqual([]);
  });

  it("another CI app's red check suite: evidence from its check runs, then the same repair", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\n" },
    );
    const outcome = await runTestsLikeActions(remote, headSha);
    actions.checkRuns.push({
      id: 801,
      suite: 555,
      name: "ci/circleci: test",
      conclusion: "failure",
      summary: "Tests failed",
      text: outcome.log,
    });
    const payload = webhookExample("check_suite", "completed") as Record<string, unknown> & {
      check_suite: Record<string, unknown>;
    };
    payload.repository = repo(payload);
    payload.check_suite = {
      ...payload.check_suite,
      id: 555,
      conclusion: "failure",
      head_sha: headSha,
      head_branch: "feature/bulk",
      app: { ...(payload.check_suite.app as object), id: 4242, slug: "circleci-checks" },
      pull_requests: [
        { number: 7, head: { ref: "feature/bulk", sha: headSha, repo: {} }, base: { ref: "main", sha: "0", repo: {} } },
      ],
    };
    payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
    payload.installation = { id: 99, node_id: "MDIz" };
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-11", name: "check_suite", payload } as never);
    await idle();
    expect(github.calls("checks/list-for-suite").map((r) => r.path)).toEqual([
      "/repos/octo-org/shop/check-suites/555/check-runs?per_page=100&page=1",
    ]);
    expect(statusComment()).toContain("✅ CI evidence: 1 failed run(s), 1 failing test(s) (log)");
    expect(state.pulls[0]).toMatchObject({ head: `autogen/fix-7-${headSha.slice(0, 7)}`, base: "feature/bulk" });
  });

  it("without `ciFailure: auto` a red build waits for a command; a reader's `/autogen fix` does nothing", async () => {
    const { headSha, actions } = await repository(MAIN, { "shop/cart.py": CART_PR });
    const text = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
    state.files[".github/autogen.yml"] = text;
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-12", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await probot.receive({
      id: "ci-13",
      name: "issue_comment",
      payload: prComment("/autogen fix", "contributor"),
    } as never);
    await idle();
    expect(await store.latest("octo-org", "shop", 7)).toBeUndefined();
    expect(state.comments).toEqual([]);
  });

  it("on the bot's own branches, red builds get `repairRoundsOnBotBranches` repairs, then no more", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: local\n" },
    );
    const red = await ciRun(actions, remote, { sha: headSha, branch: "autogen/issue-3", number: 7 });
    // One round already spent on this pull request.
    const earlier = await store.enqueue({
      deliveryId: "earlier",
      installationId: 99,
      owner: "octo-org",
      repo: "shop",
      number: 7,
      kind: "ci",
      requester: "maintainer",
      requesterId: 7,
      snapshot: { title: "Red build on #7", body: "" },
    });
    if (earlier.queued) await store.finish(earlier.job.id, "done");
    const payload = workflowRunCompleted(red);
    payload.workflow_run = { ...payload.workflow_run, head_branch: "autogen/issue-3" };
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-14", name: "workflow_run", payload } as never);
    await idle();
    expect((await store.latest("octo-org", "shop", 7))?.deliveryId).toBe("earlier");
    expect(state.comments).toEqual([]);
  });

  it("`verify: actions` without the workflow installed stops with what to do", async () => {
    const { headSha, actions } = await repository(
      MAIN,
      { "shop/cart.py": CART_PR },
      { extraConfig: "verify: actions\n" },
    );
    actions.installed = [];
    const red = await ciRun(actions, remote, { sha: headSha, branch: "feature/bulk", number: 7 });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "ci-15", name: "workflow_run", payload: workflowRunCompleted(red) } as never);
    await idle();
    expect(statusComment()).toContain(
      "Stopped by an error: `verify: actions` is set but .github/workflows/autogen-verify.yml is not installed (or is disabled) on main: from an autogen-bot checkout run `npx autogen-bot init-workflow <your clone> --write` (docs/actions.md)",
    );
    expect(state.pulls).toEqual([]);
  });
});

describe("an issue, with the verification workflow installed", { timeout: 300_000 }, () => {
  it("is verified in GitHub Actions too (`verify: auto`), and the status says so", async () => {
    const { actions } = await repository({ ...MAIN, "shop/cart.py": CART_PR }, { "README.md": "Shop.\n" });
    state.issue = { title: "Discount is added instead of subtracted", body: "total([10, 20], 5) gives 35." };
    const payload = webhookExample("issues", "labeled") as Record<string, unknown> & { issue: Record<string, unknown> };
    payload.repository = repo(payload);
    payload.issue = { ...payload.issue, number: 42, title: state.issue.title, body: state.issue.body };
    payload.label = { ...(payload.label as object), name: "autogen" };
    payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
    payload.installation = { id: 99, node_id: "MDIz" };
    const { probot, idle } = await startApp();
    await probot.receive({ id: "issue-1", name: "issues", payload } as never);
    await idle();
    const status = state.comments.find((c) => c.number === 42)?.body ?? "";
    expect(status).toContain("verifier: GitHub Actions (autogen-verify.yml)");
    expect(actions.dispatches.length).toBeGreaterThan(0);
    expect(state.pulls[0]).toMatchObject({ head: "autogen/issue-42", base: "main" });
    expect(state.pulls[0]?.body).toContain("run by the repository's verification workflow on a GitHub Actions runner");
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
  });
});
