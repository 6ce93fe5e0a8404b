// End to end, a red build on a pull request (red builds that get an explanation and no change: tests that cannot run here, failing on the base, flaky, infrastructure, a broken test run, no per-test results).
// Real webhook payloads into a real Probot, GitHub faked at the HTTP level, the Actions runner
// played by test/support/fake-actions-runner.ts (real pytest); the fixture and the checks after
// every test are in test/support/ci-flow-harness.ts. The ci-flow files are one suite split by
// theme so that the test workers share it.
import { execFileSync } from "node:child_process";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  CART_OK,
  CART_PR,
  FLAKY,
  LEGACY,
  MAIN,
  TESTS,
  github,
  prComment,
  remote,
  remoteBranches,
  repo,
  repository,
  startApp,
  state,
  statusComment,
  store,
  useCiFlowHarness,
  workflowRunCompleted,
} from "../support/ci-flow-harness.ts";
import { ciRun, runnerLog } from "../support/fake-actions-runner.ts";
import { testLlm } from "../support/llm-mock.ts";

useCiFlowHarness();

// Each test clones, runs pytest several times and pushes: minutes are plenty on a busy machine.
describe("a red build on a pull request", { timeout: 300_000 }, () => {
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
});
