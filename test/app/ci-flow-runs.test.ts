// End to end, a red build on a pull request (the verification runs in Actions: found again after a 204, woken by their webhook, resumed from a checkpoint, timed out, a moving head, `/autogen stop`).
// Real webhook payloads into a real Probot, GitHub faked at the HTTP level, the Actions runner
// played by test/support/fake-actions-runner.ts (real pytest); the fixture and the checks after
// every test are in test/support/ci-flow-harness.ts. The ci-flow files are one suite split by
// theme so that the test workers share it.
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CART_PR,
  MAIN,
  commit,
  github,
  prComment,
  remote,
  remoteBranches,
  remoteFile,
  repo,
  repository,
  sh,
  startApp,
  state,
  statusComment,
  store,
  useCiFlowHarness,
  work,
  workflowRunCompleted,
} from "../support/ci-flow-harness.ts";
import { ciRun, runDispatch, runTestsLikeActions } from "../support/fake-actions-runner.ts";

useCiFlowHarness();

// Each test clones, runs pytest several times and pushes: minutes are plenty on a busy machine.
describe("a red build on a pull request", { timeout: 300_000 }, () => {
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
});
