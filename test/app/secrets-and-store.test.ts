import { describe, expect, it } from "vitest";
import { JobStore, type JobRequest } from "../../src/jobs/job-store.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { parseCommand } from "../../src/triggers/parse-command.ts";
import { testPrivateKey } from "../support/private-key.ts";

describe("secret scrubber", () => {
  const secret = "hunter2-webhook-secret-value";
  const scrub = secretScrubber([secret, testPrivateKey(), "short"]);

  it("removes each form of a held secret seeded into test output", () => {
    const output = [
      `raw: ${secret}`,
      `base64: ${Buffer.from(secret).toString("base64")}`,
      `url: ${encodeURIComponent(`${secret}/?&`).replace(/%2F%3F%26$/, "")}`,
      `in a url: https://x:${encodeURIComponent(secret)}@example.com`,
      `key line: ${testPrivateKey().split("\n")[3]}`,
      `whole key:\n${testPrivateKey()}`,
    ].join("\n");
    const cleaned = scrub(output);
    expect(cleaned).not.toContain(secret);
    expect(cleaned).not.toContain(Buffer.from(secret).toString("base64"));
    expect(cleaned).not.toContain(testPrivateKey().split("\n")[3]);
    expect(cleaned).not.toContain("PRIVATE KEY-----\nMII");
    expect(cleaned.match(/\[secret removed\]/g)?.length).toBeGreaterThanOrEqual(6);
  });

  it("removes known token shapes it was never told about", () => {
    const tokens = [
      "ghp_abcdefghijklmnopqrstuvwxyz0123456789",
      "ghs_16C7e42F292c6912E7710c838347Ae178B4a",
      "github_pat_11ABCDEFG0123456789_abcdefghijklmnopqrstuvwxyz",
      "sk-proj-abcdefghijklmnop1234",
      "AKIAIOSFODNN7EXAMPLE",
    ];
    for (const token of tokens) expect(scrub(`token=${token};`)).toBe("token=[secret removed];");
  });

  it("leaves ordinary text and short values alone", () => {
    expect(scrub("assert total([10, 20], 5) == 25 short")).toBe("assert total([10, 20], 5) == 25 short");
  });
});

describe("commands", () => {
  it("reads /autogen commands on the first line only", () => {
    expect(parseCommand("/autogen fix")).toEqual({ kind: "fix" });
    expect(parseCommand("  /autogen PLAN please")).toEqual({ kind: "plan" });
    expect(parseCommand("/autogen retry use the cached value\nmore")).toEqual({
      kind: "retry",
      hint: "use the cached value",
    });
    expect(parseCommand("/autogen stop")).toEqual({ kind: "stop" });
    expect(parseCommand("I said /autogen fix earlier")).toBeUndefined();
    expect(parseCommand("/autogen deploy")).toBeUndefined();
  });
});

const request = (over: Partial<JobRequest> = {}): JobRequest => ({
  deliveryId: "d",
  installationId: 1,
  owner: "o",
  repo: "r",
  number: 1,
  kind: "fix",
  requester: "m",
  requesterId: 2,
  snapshot: { title: "t", body: "b" },
  ...over,
});

describe("JobStore", () => {
  it("records a delivery once", async () => {
    const store = new JobStore(":memory:");
    expect(await store.recordDelivery("x", "issues")).toBe(true);
    expect(await store.recordDelivery("x", "issues")).toBe(false);
  });

  it("keeps one active job per issue, and allows a new one once it ends", async () => {
    const store = new JobStore(":memory:");
    const first = await store.enqueue(request());
    expect(first.queued).toBe(true);
    const second = await store.enqueue(request({ deliveryId: "e" }));
    expect(second).toMatchObject({ queued: false, active: { deliveryId: "d" } });
    if (first.queued) await store.finish(first.job.id, "done");
    expect((await store.enqueue(request({ deliveryId: "f" }))).queued).toBe(true);
  });

  it("limits running jobs per installation", async () => {
    const store = new JobStore(":memory:");
    for (let n = 1; n <= 3; n++) await store.enqueue(request({ number: n, installationId: 1 }));
    await store.enqueue(request({ number: 9, installationId: 2 }));
    expect((await store.claimNext(2))?.number).toBe(1);
    expect((await store.claimNext(2))?.number).toBe(2);
    expect((await store.claimNext(2))?.number).toBe(9);
    expect(await store.claimNext(2)).toBeUndefined();
    expect(await store.queueDepth()).toEqual({ queued: 1, running: 3 });
  });

  it("requeues interrupted jobs with their checkpoints", async () => {
    const store = new JobStore(":memory:");
    const queued = await store.enqueue(request());
    if (!queued.queued) throw new Error("not queued");
    await store.claimNext(1);
    await store.checkpoint(queued.job.id, { pushed: "abc" });
    expect(await store.requeueInterrupted()).toBe(1);
    expect(await store.get(queued.job.id)).toMatchObject({ state: "queued", checkpoint: { pushed: "abc" } });
  });
});
