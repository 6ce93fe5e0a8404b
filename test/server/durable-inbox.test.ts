// The webhook answer does not wait for GitHub: a signed delivery is stored in the inbox
// and acknowledged; the gate (config, permission: GitHub calls) runs afterwards, is
// retried when GitHub fails, ends `failed` with its reason when GitHub stays down, and a
// redelivery of the same id never makes a second job. GitHub is nock at the HTTP level.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { Store } from "../../src/jobs/store.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { postWebhook, webhookExample } from "../support/webhook-examples.ts";

const secret = "durable-inbox-secret";
const GITHUB = "https://ghe.test";
const API = "/api/v3";
let running: RunningServer | undefined;

useHttpMock();

afterEach(async () => {
  await running?.stop();
  running = undefined;
});

async function start(dbPath?: string): Promise<{ server: RunningServer; dbPath: string }> {
  const path = dbPath ?? join(await mkdtemp(join(tmpdir(), "autogen-inbox-")), "autogen.db");
  const config = loadServerConfig({
    APP_ID: "42",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "fatal",
    GHE_HOST: "ghe.test",
    AUTOGEN_DB_PATH: path,
  });
  // No workers: the jobs are looked at, not run.
  running = await startServer(
    { ...config, concurrency: 0 },
    {
      Octokit: TestOctokit,
      inbox: { maxAttempts: 3, backoffMs: () => 20 },
    },
  );
  return { server: running, dbPath: path };
}

function labeled(number = 42) {
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
  payload.issue = { ...payload.issue, number, title: "Discount is wrong", body: "steps" };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}

const token = () =>
  nock(GITHUB)
    .post(`${API}/app/installations/99/access_tokens`)
    .reply(201, { token: "ghs_test", expires_at: new Date(Date.now() + 3_600_000).toISOString() });
const noConfig = () =>
  nock(GITHUB)
    .get(`${API}/repos/octo-org/shop/contents/.github%2Fautogen.yml`)
    .query(true)
    .reply(404, { message: "Not Found" });
const permission = () => nock(GITHUB).get(`${API}/repos/octo-org/shop/collaborators/maintainer/permission`);

function redBuild(number = 7) {
  const payload = webhookExample("workflow_run", "completed") as Record<string, unknown> & {
    repository: Record<string, unknown>;
    workflow_run: Record<string, unknown>;
    workflow: Record<string, unknown>;
  };
  payload.repository = {
    ...payload.repository,
    name: "shop",
    full_name: "octo-org/shop",
    default_branch: "main",
    owner: { ...(payload.repository.owner as object), login: "octo-org" },
  };
  payload.workflow = { ...payload.workflow, path: ".github/workflows/ci.yml" };
  const sha = "a".repeat(40);
  payload.workflow_run = {
    ...payload.workflow_run,
    id: 555,
    path: ".github/workflows/ci.yml",
    event: "pull_request",
    status: "completed",
    conclusion: "failure",
    head_sha: sha,
    head_branch: "feature/bulk",
    pull_requests: [
      { number, head: { ref: "feature/bulk", sha, repo: {} }, base: { ref: "main", sha: "0", repo: {} } },
    ],
  };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  return payload;
}
const autoConfig = () =>
  nock(GITHUB)
    .get(`${API}/repos/octo-org/shop/contents/.github%2Fautogen.yml`)
    .query(true)
    .reply(200, {
      type: "file",
      encoding: "base64",
      content: Buffer.from("triggers:\n  ciFailure: auto\n").toString("base64"),
      name: "autogen.yml",
      path: ".github/autogen.yml",
    });

const url = (server: RunningServer) => `${server.url}/api/github/webhooks`;
const jobsOf = (store: Store, number = 42) => store.countJobs("octo-org", "shop", number, "fix");

describe("durable inbox", () => {
  it("acknowledges before GitHub answers the gate's first call", async () => {
    const { server } = await start();
    const events: string[] = [];
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    nock(GITHUB)
      .post(`${API}/app/installations/99/access_tokens`)
      .reply(async () => {
        events.push("github asked");
        await released;
        events.push("github answered");
        return [201, { token: "ghs_test", expires_at: new Date(Date.now() + 3_600_000).toISOString() }];
      });
    noConfig();
    permission().reply(200, { permission: "write" });

    const response = await postWebhook(url(server), secret, "issues", labeled(), "ack-1");
    events.push(`ack ${response.status}`);
    expect(response.status).toBe(202);
    expect((await server.store.inbox("ack-1"))?.state).toBe("pending");
    release();
    await server.inbox.idle();
    expect(events.indexOf("ack 202")).toBeLessThan(events.indexOf("github answered"));
    expect(await server.store.inbox("ack-1")).toMatchObject({ state: "done", attempts: 1 });
    expect(await jobsOf(server.store)).toBe(1);
  });

  it("retries a delivery whose gate met a GitHub error, and a redelivery of it makes no second job", async () => {
    const { server } = await start();
    token();
    noConfig();
    permission().reply(502, { message: "Bad Gateway" });
    noConfig();
    permission().reply(200, { permission: "admin" });

    expect((await postWebhook(url(server), secret, "issues", labeled(), "retry-1")).status).toBe(202);
    while ((await server.store.inbox("retry-1"))?.state === "pending")
      await server.inbox.idle().then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(await server.store.inbox("retry-1")).toMatchObject({ state: "done", attempts: 2 });
    expect(await jobsOf(server.store)).toBe(1);

    // GitHub redelivers the same id: answered, nothing stored, still one job.
    const again = await postWebhook(url(server), secret, "issues", labeled(), "retry-1");
    expect(again.status).toBe(200);
    expect(await again.json()).toEqual({ message: "already received" });
    await server.inbox.idle();
    expect(await jobsOf(server.store)).toBe(1);
  });

  it("retries a red build whose gate met a GitHub error, and its repair job is not lost to its own first attempt", async () => {
    const { server } = await start();
    token();
    autoConfig();
    permission().reply(502, { message: "Bad Gateway" });
    autoConfig();
    permission().reply(200, { permission: "write" });

    expect((await postWebhook(url(server), secret, "workflow_run", redBuild(), "red-1")).status).toBe(202);
    while ((await server.store.inbox("red-1"))?.state === "pending")
      await server.inbox.idle().then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(await server.store.inbox("red-1")).toMatchObject({ state: "done", attempts: 2 });
    expect(await server.store.countJobs("octo-org", "shop", 7, "ci")).toBe(1);

    // Another delivery about the same red build (the check suite's, or a new id) makes no second job.
    autoConfig();
    expect((await postWebhook(url(server), secret, "workflow_run", redBuild(), "red-2")).status).toBe(202);
    while ((await server.store.inbox("red-2"))?.state === "pending")
      await server.inbox.idle().then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect(await server.store.countJobs("octo-org", "shop", 7, "ci")).toBe(1);
  });

  it("ends a delivery `failed` with GitHub's error when GitHub stays unreachable", async () => {
    const { server } = await start();
    for (let i = 0; i < 3; i++)
      nock(GITHUB).post(`${API}/app/installations/99/access_tokens`).replyWithError("connect ECONNREFUSED");
    expect((await postWebhook(url(server), secret, "issues", labeled(), "down-1")).status).toBe(202);
    while ((await server.store.inbox("down-1"))?.state === "pending")
      await server.inbox.idle().then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    const row = await server.store.inbox("down-1");
    expect(row).toMatchObject({ state: "failed", attempts: 3 });
    expect(row?.error).toContain("ECONNREFUSED");
    expect(await jobsOf(server.store)).toBe(0);
    expect(await server.store.inboxDepth()).toEqual({ pending: 0, failed: 1 });
  });

  it("handles at the next start a delivery stored before a stop, exactly once", async () => {
    const first = await start();
    // GitHub hangs on the first attempt: the server stops with the delivery still pending.
    let release: () => void = () => undefined;
    const released = new Promise<void>((resolve) => (release = resolve));
    nock(GITHUB)
      .post(`${API}/app/installations/99/access_tokens`)
      .reply(async () => {
        await released;
        return [502, { message: "Bad Gateway" }];
      });
    expect((await postWebhook(url(first.server), secret, "issues", labeled(7), "restart-1")).status).toBe(202);
    const stopping = first.server.stop();
    release();
    await stopping;
    running = undefined;
    const before = new JobStore(first.dbPath);
    expect((await before.inbox("restart-1"))?.state).toBe("pending");
    expect(await jobsOf(before, 7)).toBe(0);
    await before.close();

    token();
    noConfig();
    permission().reply(200, { permission: "write" });
    const second = await start(first.dbPath);
    while ((await second.server.store.inbox("restart-1"))?.state === "pending")
      await second.server.inbox.idle().then(() => new Promise((resolve) => setTimeout(resolve, 20)));
    expect((await second.server.store.inbox("restart-1"))?.state).toBe("done");
    expect(await jobsOf(second.server.store, 7)).toBe(1);
    expect((await postWebhook(url(second.server), secret, "issues", labeled(7), "restart-1")).status).toBe(200);
    expect(await jobsOf(second.server.store, 7)).toBe(1);
  });
});
