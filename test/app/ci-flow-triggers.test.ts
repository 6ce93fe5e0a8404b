// End to end, a red build on a pull request (where red builds come from and when they are acted on: forks, another CI app's check suite, `ciFailure`, the bot's own branches, the workflow missing, an issue verified in Actions).
// Real webhook payloads into a real Probot, GitHub faked at the HTTP level, the Actions runner
// played by test/support/fake-actions-runner.ts (real pytest); the fixture and the checks after
// every test are in test/support/ci-flow-harness.ts. The ci-flow files are one suite split by
// theme so that the test workers share it.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import {
  CART_PR,
  MAIN,
  commit,
  github,
  prComment,
  remote,
  remoteFile,
  repo,
  repository,
  startApp,
  state,
  statusComment,
  store,
  useCiFlowHarness,
  workflowRunCompleted,
} from "../support/ci-flow-harness.ts";
import { ciRun, runTestsLikeActions } from "../support/fake-actions-runner.ts";
import { webhookExample } from "../support/webhook-examples.ts";

useCiFlowHarness();

// Each test clones, runs pytest several times and pushes: minutes are plenty on a busy machine.
describe("a red build on a pull request", { timeout: 300_000 }, () => {
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
