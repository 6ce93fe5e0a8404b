// `autogen serve`'s server: HOST and PORT honoured, health endpoint, webhooks accepted.
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { VERSION } from "../../src/version.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { postWebhook, webhookExample } from "../support/webhook-examples.ts";

const secret = "serve-test-secret";
let running: RunningServer;

useHttpMock();

beforeAll(async () => {
  const config = loadServerConfig({ APP_ID: "42", PRIVATE_KEY: testPrivateKey(), WEBHOOK_SECRET: secret, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "fatal", AUTOGEN_DB_PATH: join(await mkdtemp(join(tmpdir(), "autogen-serve-")), "autogen.db") });
  running = await startServer(config);
});

afterAll(async () => {
  await running.stop();
});

describe("startServer", () => {
  it("listens on the configured HOST", () => {
    expect(running.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    const address = running.http.address();
    expect(typeof address === "object" && address?.address).toBe("127.0.0.1");
  });

  it("answers the health endpoint with the version", async () => {
    const response = await fetch(`${running.url}/healthz`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ status: "ok", version: VERSION, llm: "model-free", store: "sqlite", queue: { queued: 0, running: 0 } });
  });

  it("accepts a signed webhook at the webhook path", async () => {
    // A comment that is no command: acknowledged, no GitHub call, no job.
    const payload = webhookExample("issue_comment", "created") as { comment: { body: string } };
    payload.comment.body = "Thanks for the report!";
    const response = await postWebhook(`${running.url}/api/github/webhooks`, secret, "issue_comment", payload, "d-1");
    expect(response.status).toBe(200);
  });
});
