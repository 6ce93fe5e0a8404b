// The app loaded into a real Probot, behind Probot's own node middleware on a loopback
// HTTP server, receiving signed payloads from @octokit/webhooks-examples.
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { createNodeMiddleware, Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { postWebhook, webhookExample } from "../support/webhook-examples.ts";

const secret = "test-webhook-secret";
let server: Server;
let url: string;
const errors: unknown[] = [];

useHttpMock();

beforeAll(async () => {
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret,
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  probot.onError((error) => {
    errors.push(error);
  });
  const app = createAutogenApp({
    store: new JobStore(":memory:"),
    cacheRoot: "/nonexistent-cache",
    scrub: (t) => t,
    concurrency: 1,
    perInstallation: 1,
  });
  const middleware = await createNodeMiddleware(app, { probot, webhooksPath: "/api/github/webhooks" });
  server = createServer((req, res) => {
    void middleware(req, res, () => res.writeHead(404).end());
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/github/webhooks`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

describe("webhook endpoint", () => {
  it("acknowledges a signed delivery with 2xx and no handler error", async () => {
    // An issue edit with no job running: handled, nothing to do, no GitHub call.
    const response = await postWebhook(url, secret, "issues", webhookExample("issues", "edited"), "delivery-1");
    expect(response.status).toBeGreaterThanOrEqual(200);
    expect(response.status).toBeLessThan(300);
    expect(errors).toEqual([]);
  });

  it("treats an event the bot does not handle as a no-op, not an error", async () => {
    const response = await postWebhook(url, secret, "star", webhookExample("star", "created"), "delivery-2");
    expect(response.status).toBe(200);
    expect(errors).toEqual([]);
  });

  it("refuses a delivery with a wrong signature", async () => {
    const response = await postWebhook(
      url,
      secret,
      "issues",
      webhookExample("issues", "labeled"),
      "delivery-3",
      "sha256=0000",
    );
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});
