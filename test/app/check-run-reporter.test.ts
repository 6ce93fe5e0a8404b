// The check run's text and annotations: batches of at most 50 annotations per request
// past GitHub's limit, a summary cut cleanly at GitHub's 65535 characters, the conclusion
// for each way a job ends, and annotation paths from hostile diffs and test output. The
// reporter talks to the fake GitHub over HTTP through a real Probot installation client.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { CheckRunReporter } from "../../src/app/check-run-reporter.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { emptyOutcome } from "../../src/engine/task.ts";
import {
  MAX_CHECK_SUMMARY,
  octokitCheckRunForge,
  truncateSummary,
  type ChecksOctokitLike,
} from "../../src/forge/check-run-forge.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { Job } from "../../src/jobs/store.ts";
import { changedLineAnnotations, failureSites, parseFailureSites } from "../../src/report/check-annotations.ts";
import { checkVerdict } from "../../src/report/check-run-summary.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeCheckRun, type FakeGitHubState } from "../support/fake-github.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";

const network = networkGuard();
let root: string;
let store: JobStore;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
const SHA = "a".repeat(40);
const SECRET = "ghp_supersecrettoken0123456789abcdefABCD";

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-check-reporter-"));
  store = new JobStore(join(root, "jobs.db"));
  state = {
    issue: { title: "t", body: "" },
    comments: [],
    pulls: [],
    permissions: {},
    files: {},
    defaultBranch: "main",
    cloneUrl: "unused",
  };
  github = fakeGitHub(state);
});

afterEach(() => {
  const { unmatched } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description or limits").toEqual([]);
  expect(unmatched).toEqual([]);
});

const logs: string[] = [];
function reporter() {
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  return new CheckRunReporter({
    store,
    checksFor: async (id) =>
      octokitCheckRunForge((await probot.auth(id)) as unknown as ChecksOctokitLike, secretScrubber([SECRET])),
    log: { info: () => undefined, warn: (_meta, msg) => void logs.push(msg) },
  });
}

/** A diff changing `blocks` separate lines of one file (each its own hunk). */
function manyBlocks(blocks: number): string {
  const hunks = Array.from(
    { length: blocks },
    (_, i) => `@@ -${i * 10 + 1},1 +${i * 10 + 1},1 @@\n-old ${i}\n+new ${i}`,
  );
  return `diff --git a/src/big.py b/src/big.py\n--- a/src/big.py\n+++ b/src/big.py\n${hunks.join("\n")}\n`;
}

async function endedJob(
  checkpoint: Record<string, unknown>,
  state: "done" | "failed" | "cancelled" = "done",
  kind: Job["kind"] = "fix",
): Promise<Job> {
  const { job } = (await store.enqueue({
    deliveryId: `d-${Math.random()}`,
    installationId: 99,
    owner: "octo-org",
    repo: "shop",
    number: 42,
    kind,
    requester: "maintainer",
    requesterId: 7,
    snapshot: { title: "Big fix", body: "" },
  })) as { job: Job };
  await store.checkpoint(job.id, checkpoint);
  await store.finish(job.id, state, state === "done" ? undefined : "boom");
  return (await store.get(job.id)) as Job;
}

function fixed(diff: string, files: string[]): Outcome {
  return {
    ...emptyOutcome("template"),
    status: "fixed",
    stopReason: "solved",
    message: "subtract the discount",
    diff,
    changedFiles: files,
  };
}

describe("the check run reporter", () => {
  it("sends 120 annotations in batches of at most 50, completing with the last batch", async () => {
    const job = await endedJob({ pushed: SHA, outcome: fixed(manyBlocks(120), ["src/big.py"]) });
    await reporter().complete(job.id);
    const runs = state.ownCheckRuns as FakeCheckRun[];
    expect(runs).toHaveLength(1);
    expect(runs[0]?.annotations).toHaveLength(120);
    const updates = github.calls("checks/update");
    expect(updates.map((u) => ((u.body?.output as { annotations?: unknown[] }).annotations ?? []).length)).toEqual([
      50, 50, 20,
    ]);
    // In progress until the last request, which carries the conclusion and the Retry button.
    expect(updates.map((u) => u.body?.conclusion ?? null)).toEqual([null, null, "success"]);
    expect(runs[0]).toMatchObject({
      status: "completed",
      conclusion: "success",
      external_id: String(job.id),
      head_sha: SHA,
    });
    expect(runs[0]?.annotations[119]).toMatchObject({
      path: "src/big.py",
      start_line: 1191,
      end_line: 1191,
      annotation_level: "notice",
    });
    // Completing twice (a restart) sends nothing more.
    const before = github.requests.length;
    await reporter().complete(job.id);
    expect(github.requests.length).toBe(before);
  });

  it("cuts a summary over 65535 characters at a line, closes its code fence and scrubs secrets", async () => {
    const long = [
      "```",
      ...Array.from({ length: 4000 }, (_, i) => `line ${i} ${"x".repeat(20)} ${i === 3999 ? SECRET : ""}`),
      "```",
    ].join("\n");
    const job = await endedJob({
      pushed: SHA,
      outcome: fixed("", []),
      statusReport: { steps: [{ name: "Plan", state: "done" }], summary: `${SECRET}\n${long}` },
    });
    await reporter().complete(job.id);
    const summary = (state.ownCheckRuns as FakeCheckRun[])[0]?.output.summary ?? "";
    expect(summary.length).toBeLessThanOrEqual(MAX_CHECK_SUMMARY);
    expect(summary.length).toBeGreaterThan(MAX_CHECK_SUMMARY - 500);
    expect(summary).not.toContain(SECRET);
    expect(summary).toMatch(/\n```\n\n… \(truncated: GitHub limits a check run's summary to 65535 characters/);
    expect(summary.split("\n").filter((l) => l.startsWith("```")).length % 2).toBe(0);
    expect(truncateSummary("short")).toBe("short");
  });

  it("a failing checks API is logged, never thrown", async () => {
    state.fault = () => 502;
    const job = await endedJob({ pushed: SHA, outcome: fixed("", []) });
    logs.length = 0;
    await expect(reporter().complete(job.id)).resolves.toBeUndefined();
    expect(logs).toEqual(["check run not completed"]);
  });

  it("has no check run for a job that made no commit and knows none", async () => {
    const job = await endedJob({ outcome: emptyOutcome("template") });
    await reporter().complete(job.id);
    expect(github.requests).toEqual([]);
  });
});

describe("the check run's conclusion", () => {
  it("neutral, titled so, for a fix that needs a reviewer: not reviewed, or an output change the issue did not ask for", async () => {
    const unreviewed: Outcome = { ...fixed("", []), review: { verdict: "not-reviewed", reason: "no model" } };
    expect(checkVerdict(await endedJob({ pushed: SHA, outcome: unreviewed }))).toMatchObject({
      conclusion: "neutral",
      title: "Passes the tests; not reviewed: subtract the discount",
    });
    const row = { call: "total([])", why: "the empty cart", expected: "unspecified", before: "0", after: "None" };
    const changed: Outcome = {
      ...fixed("", []),
      review: { verdict: "accepted", reason: "right" },
      behaviour: { kind: "table", module: "shop.cart", rows: [{ ...row, flag: "unrequested" }] },
    };
    expect(checkVerdict(await endedJob({ pushed: SHA, outcome: changed }))).toMatchObject({
      conclusion: "neutral",
      title: "Fixed; 1 output change(s) the issue did not ask for: subtract the discount",
    });
    // A fork's unreviewed fix: the button still offers it, as a draft.
    expect(checkVerdict(await endedJob({ headSha: SHA, outcome: unreviewed }, "done", "ci"))).toMatchObject({
      conclusion: "neutral",
      forkPatch: true,
      title: "Passes the tests; not reviewed: Apply fix opens a draft pull request with it",
    });
    // The same table with every output as the issue expects: a green check.
    const agreed: Outcome = {
      ...changed,
      behaviour: { kind: "table", module: "shop.cart", rows: [{ ...row, after: "0", flag: "ok" }] },
    };
    expect(checkVerdict(await endedJob({ pushed: SHA, outcome: agreed })).conclusion).toBe("success");
  });

  it("success when fixed, neutral for a plan or nothing to do, failure when it gave up or failed, cancelled when stopped", async () => {
    const gaveUp = { ...emptyOutcome("template"), stopReason: "exhausted", message: "no candidate passed" } as Outcome;
    expect(checkVerdict(await endedJob({ pushed: SHA, outcome: fixed("", []) })).conclusion).toBe("success");
    expect(checkVerdict(await endedJob({ outcome: gaveUp }, "done", "plan")).conclusion).toBe("neutral");
    expect(
      checkVerdict(await endedJob({ headSha: SHA, planOnly: true, outcome: fixed("", []) }, "done", "ci")).conclusion,
    ).toBe("neutral");
    const notCaused = await endedJob(
      {
        headSha: SHA,
        statusReport: { steps: [], summary: "None of the failing tests was caused by this pull request." },
      },
      "done",
      "ci",
    );
    expect(checkVerdict(notCaused)).toMatchObject({
      conclusion: "neutral",
      title: "None of the failing tests was caused by this pull request.",
    });
    expect(checkVerdict(await endedJob({ pushed: SHA, outcome: gaveUp })).conclusion).toBe("failure");
    expect(checkVerdict(await endedJob({}, "failed"))).toMatchObject({
      conclusion: "failure",
      title: "Stopped by an error: boom",
    });
    expect(checkVerdict(await endedJob({}, "cancelled")).conclusion).toBe("cancelled");
    // A fork's fix: found, not pushed, no PR: the Apply fix button.
    expect(checkVerdict(await endedJob({ headSha: SHA, outcome: fixed("", []) }, "done", "ci")).forkPatch).toBe(true);
    expect(
      checkVerdict(await endedJob({ headSha: SHA, pushed: SHA, pull: 9, outcome: fixed("", []) }, "done", "ci"))
        .forkPatch,
    ).toBe(false);
  });
});

describe("annotation paths from hostile input", () => {
  it("changed lines only in files the engine changed, never outside the repository", () => {
    const diff = [
      "diff --git a/shop/cart.py b/shop/cart.py",
      "--- a/shop/cart.py",
      "+++ b/shop/cart.py",
      "@@ -1,3 +1,4 @@",
      " a",
      "-b",
      "+B",
      "+C",
      " d",
      "diff --git a/../etc/passwd b/../etc/passwd",
      "--- a/../etc/passwd",
      "+++ b/../etc/passwd",
      "@@ -1 +1 @@",
      "-root",
      "+evil",
      "--- a/notes.md",
      "+++ b/notes.md",
      "@@ -5,2 +5,3 @@",
      " x",
      "+inserted",
      " y",
    ].join("\n");
    const annotations = changedLineAnnotations(diff, ["shop/cart.py", "../etc/passwd", "notes.md"], "new", "m");
    expect(annotations.map((a) => [a.path, a.start_line, a.end_line])).toEqual([
      ["shop/cart.py", 2, 3],
      ["notes.md", 6, 6],
    ]);
    // The old side of an insertion: the line before it.
    expect(changedLineAnnotations(diff, ["notes.md"], "old", "m").map((a) => [a.start_line, a.end_line])).toEqual([
      [5, 5],
    ]);
    // A file the engine did not change is never annotated, whatever the diff says.
    expect(changedLineAnnotations(diff, ["shop/cart.py"], "new", "m").map((a) => a.path)).toEqual(["shop/cart.py"]);
  });

  it("failure sites only at test files that exist in the worktree, with the line the traceback names", async () => {
    const worktree = await mkdtemp(join(tmpdir(), "autogen-sites-"));
    await mkdir(join(worktree, "tests"));
    await writeFile(join(worktree, "tests/test_cart.py"), "x\n");
    const run = {
      argv: [],
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 1,
      output: "",
      outputBytes: 0,
      outputTruncated: false,
      isolation: "none" as const,
    };
    const tests = [
      {
        id: "tests/test_cart.py::test_a",
        name: "test_a",
        status: "fail" as const,
        message: "AssertionError: 35 != 25",
        details: "tests/test_cart.py:5: AssertionError",
      },
      { id: "../../etc/passwd::t", name: "t", status: "fail" as const },
      { id: "x", name: "x", file: "/etc/passwd", status: "fail" as const },
      { id: "tests/missing.py::t", name: "t", status: "error" as const },
      { id: "tests/test_cart.py::test_b", name: "test_b", status: "pass" as const },
    ];
    const sites = failureSites([{ run, tests, source: "junit" }], worktree);
    expect(sites).toEqual([
      { id: "tests/test_cart.py::test_a", path: "tests/test_cart.py", line: 5, message: "AssertionError: 35 != 25" },
    ]);
    // Read back from a checkpoint: anything forged there is dropped too.
    expect(
      parseFailureSites([
        ...sites,
        { id: "x", path: "../x", line: 1, message: "" },
        { id: "y", path: "a", line: 0, message: "" },
        "junk",
      ]),
    ).toEqual(sites);
  });
});
