// A red run's evidence compares each failing job's log with the same job's log in the most
// recent successful run of the same workflow on the base branch, found through the runs API
// (branch and status filters); every request is checked against GitHub's REST description by
// the fake GitHub (nock at the HTTP level).
import { Octokit } from "@octokit/rest";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { collectRunEvidence } from "../../src/ci/run-evidence.ts";
import type { RequestLike, WorkflowRun } from "../../src/forge/ci-forge.ts";
import { octokitCiForge } from "../../src/forge/octokit-ci-forge.ts";
import { fakeActions, fakeGitHub, type FakeGitHubState, type FakeRun } from "../support/fake-github.ts";
import { networkGuard } from "../support/network-guard.ts";

const network = networkGuard();
let github: ReturnType<typeof fakeGitHub>;
let state: FakeGitHubState;

// Lines as a Maven job prints them (the shape of cidiff-breakages' logs); the recurring
// "[ERROR] Picked up JAVA_TOOL_OPTIONS" is printed by every build of this job, green or red.
const stamp = (lines: string[]) =>
  lines.map((l, i) => `2024-03-0${1 + (i % 9)}T10:00:${String(i % 60).padStart(2, "0")}.0000000Z ${l}`).join("\n");
const common = [
  "##[group]Run mvn -B verify",
  "mvn -B verify",
  "[ERROR] Picked up JAVA_TOOL_OPTIONS: -Xmx2g",
  ...Array.from({ length: 40 }, (_, i) => `[INFO] Compiling module ${i}`),
  "##[endgroup]",
];
const RED = stamp([
  ...common,
  "[ERROR] /src/main/java/demo/Calc.java:[12,5] cannot find symbol",
  "[ERROR]   symbol:   method addd(int,int)",
  "[INFO] BUILD FAILURE",
  "##[error]Process completed with exit code 1.",
]);
const GREEN = stamp([...common, "[INFO] BUILD SUCCESS"]);

const run = (id: number, branch: string, conclusion: string, created: string): FakeRun => ({
  id,
  name: "CI",
  path: ".github/workflows/ci.yml",
  display_title: "CI",
  event: "push",
  status: "completed",
  conclusion,
  head_sha: String(id).repeat(40).slice(0, 40),
  head_branch: branch,
  pull_requests: [],
  created_at: created,
  html_url: `https://github.com/o/r/actions/runs/${id}`,
  check_suite_id: id + 1000,
});
const job = (id: number, runId: number, conclusion: string, log: string) => ({
  id,
  run_id: runId,
  name: "build",
  status: "completed",
  conclusion,
  steps: [{ number: 1, name: "Build", status: "completed", conclusion }],
  log,
});

beforeEach(() => {
  network.start();
  const actions = fakeActions();
  actions.runs.push(
    run(10, "main", "success", "2024-03-01T10:00:00Z"),
    run(11, "main", "success", "2024-03-02T10:00:00Z"),
    run(12, "feature/x", "success", "2024-03-03T10:00:00Z"),
    run(13, "main", "failure", "2024-03-04T10:00:00Z"),
    run(20, "feature/y", "failure", "2024-03-05T10:00:00Z"),
  );
  actions.jobs.push(
    job(110, 10, "success", GREEN),
    job(111, 11, "success", GREEN),
    job(112, 12, "success", GREEN),
    job(113, 13, "failure", RED),
    job(120, 20, "failure", RED),
  );
  state = {
    issue: { title: "", body: "" },
    comments: [],
    pulls: [],
    permissions: {},
    files: {},
    defaultBranch: "main",
    cloneUrl: "",
    actions,
  };
  github = fakeGitHub(state);
});

afterEach(() => {
  const { unmatched, unused } = network.stop();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched).toEqual([]);
  expect(unused).toEqual([]);
});

const ci = () =>
  octokitCiForge(new Octokit({ auth: "ghs_test", request: { retries: 0 } }).request as unknown as RequestLike);
const red: WorkflowRun = {
  id: 20,
  name: "CI",
  path: ".github/workflows/ci.yml",
  displayTitle: "CI",
  event: "push",
  status: "completed",
  conclusion: "failure",
  headSha: "2".repeat(40),
  headBranch: "feature/y",
  htmlUrl: "",
  checkSuiteId: 1020,
  pullRequests: [],
  createdAt: "2024-03-05T10:00:00Z",
};

describe("the passing log of a red run", () => {
  it("is the same job's log in the newest successful run of the workflow on the base branch, and the digest says it used it", async () => {
    const evidence = await collectRunEvidence(ci(), "o", "r", red, { baseBranch: "main" });
    const listed = github.calls("actions/list-workflow-runs");
    expect(listed.map((c) => c.path)).toEqual([
      "/repos/o/r/actions/workflows/ci.yml/runs?branch=main&status=success&per_page=100&page=1",
    ]);
    expect(evidence.jobs[0]?.passing).toMatchObject({ runId: 11, jobName: "build", branch: "main" });
    expect(evidence.digest).toContain(
      "job build (failed step: Build), compared with the passing log of the same job in run 11 on main:",
    );
    expect(evidence.digest).toContain("[ERROR] /src/main/java/demo/Calc.java:[12,5] cannot find symbol");
    // What the green build prints too is not the failure.
    expect(evidence.digest).not.toContain("JAVA_TOOL_OPTIONS");
    expect(evidence.problems).toEqual([]);
  });

  it("without a base branch (or a green run on it) the digest says there was nothing to compare with", async () => {
    const evidence = await collectRunEvidence(ci(), "o", "r", red);
    expect(github.calls("actions/list-workflow-runs")).toEqual([]);
    expect(evidence.digest).toContain("job build (failed step: Build), no passing log to compare with:");
    expect(evidence.digest).toContain("cannot find symbol");
    const none = await collectRunEvidence(ci(), "o", "r", red, { baseBranch: "release" });
    expect(none.jobs[0]?.passing).toBeUndefined();
    expect(none.digest).toContain("no passing log to compare with");
  });
});
