// End to end, a red build on a pull request (the repair itself: a caused failure fixed and verified in Actions, caused and pre-existing together, a model's plan (LPW), review feedback, `/autogen plan`).
// Real webhook payloads into a real Probot, GitHub faked at the HTTP level, the Actions runner
// played by test/support/fake-actions-runner.ts (real pytest); the fixture and the checks after
// every test are in test/support/ci-flow-harness.ts. The ci-flow files are one suite split by
// theme so that the test workers share it.
import { execFileSync } from "node:child_process";
import { describe, expect, it } from "vitest";
import { MemoryPool } from "../../src/engine/memory/memory-pool.ts";
import {
  CART_OK,
  CART_PR,
  IMPLEMENT_ANSWER,
  LEGACY,
  MAIN,
  PLAN_ANSWERS,
  TESTS,
  commit,
  github,
  prComment,
  remote,
  remoteBranches,
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
import { ciRun } from "../support/fake-actions-runner.ts";
import { scriptAnswers, testLlm } from "../support/llm-mock.ts";
import { webhookExample } from "../support/webhook-examples.ts";

useCiFlowHarness();

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
    const scripted = scriptAnswers([...PLAN_ANSWERS, IMPLEMENT_ANSWER]);
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
});
