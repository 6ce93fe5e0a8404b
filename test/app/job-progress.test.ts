// The App's progress port: a heartbeat of the pipeline becomes a line under the status
// comment's steps (phase, what runs, elapsed), the next step update replaces it, and the
// finished comment never keeps it. The comment lives in the fake GitHub over HTTP.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import { issueJobProgress } from "../../src/app/job-progress.ts";
import { StatusReporter } from "../../src/app/status-reporter.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { octokitForge, type OctokitLike } from "../../src/forge/forge.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { Job } from "../../src/jobs/store.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";

const network = networkGuard();
let store: JobStore;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;

beforeEach(async () => {
  network.start();
  store = new JobStore(join(await mkdtemp(join(tmpdir(), "autogen-job-progress-")), "jobs.db"));
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
  expect(github.errors).toEqual([]);
  expect(unmatched).toEqual([]);
});

async function statusOfJob(): Promise<{ job: Job; status: StatusReporter }> {
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  const forge = octokitForge((await probot.auth(99)) as unknown as OctokitLike, secretScrubber([]));
  const request = {
    deliveryId: "d-1",
    installationId: 99,
    owner: "octo-org",
    repo: "shop",
    number: 42,
    kind: "fix" as const,
    requester: "m",
    requesterId: 7,
    snapshot: { title: "t", body: "" },
  };
  const { job } = (await store.enqueue(request)) as { job: Job };
  const status = new StatusReporter(forge, store, job, 0);
  await status.start();
  return { job, status };
}

const comment = () => state.comments.at(-1)?.body ?? "";
// A bound on waiting for the fire-and-forget update on a busy machine, not a speed check.
const UNTIL = { timeout: 60_000, interval: 50 };

describe("the App's progress port", () => {
  it("shows a heartbeat under the steps until the next step update, and not in the final comment", async () => {
    const { job, status } = await statusOfJob();
    const progress = issueJobProgress(job, { store, log: { info: () => undefined, warn: () => undefined } }, status, {
      path: "/nowhere",
      sha: "a".repeat(40),
    });
    progress.heartbeat?.({ stage: "baseline", elapsedMs: 27_400, doing: "the whole suite (pytest) before any change" });
    await vi.waitFor(
      () => expect(comment()).toContain("Working (baseline): the whole suite (pytest) before any change, 27 s so far."),
      UNTIL,
    );
    expect(comment()).toMatch(/⬜ \*{0,2}Plan/);

    await progress.stage?.({ stage: "strategy", strategy: templateStrategy });
    await vi.waitFor(() => expect(comment()).toMatch(/⏳ \*{0,2}Plan/), UNTIL);
    expect(comment()).not.toContain("Working (");

    progress.heartbeat?.({ stage: "run", elapsedMs: 61_000, doing: "attempt 3: swap the operands" });
    await status.finish("Stopped.");
    expect(comment()).toContain("Stopped.");
    expect(comment()).not.toContain("Working (");
  });
});
