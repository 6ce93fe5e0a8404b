// `autogen serve`'s server: HOST and PORT honoured, health endpoint, webhooks accepted.
import { readdirSync, readFileSync } from "node:fs";
import { createServer } from "node:net";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { startServer, type RunningServer } from "../../src/server/start-server.ts";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";
import { VERSION } from "../../src/version.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { postWebhook, webhookExample } from "../support/webhook-examples.ts";

const secret = "serve-test-secret";
let running: RunningServer;

useHttpMock();

beforeAll(async () => {
  const config = loadServerConfig({
    APP_ID: "42",
    PRIVATE_KEY: testPrivateKey(),
    WEBHOOK_SECRET: secret,
    HOST: "127.0.0.1",
    PORT: "0",
    LOG_LEVEL: "fatal",
    AUTOGEN_DB_PATH: join(await mkdtemp(join(tmpdir(), "autogen-serve-")), "autogen.db"),
  });
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
    expect(await response.json()).toEqual({
      status: "ok",
      version: VERSION,
      llm: "model-free",
      store: "sqlite",
      queue: { queued: 0, running: 0 },
      inbox: { pending: 0, failed: 0 },
    });
  });

  it("accepts a signed webhook at the webhook path", async () => {
    // A comment that is no command: acknowledged, no GitHub call, no job.
    const payload = webhookExample("issue_comment", "created") as { comment: { body: string } };
    payload.comment.body = "Thanks for the report!";
    const response = await postWebhook(`${running.url}/api/github/webhooks`, secret, "issue_comment", payload, "d-1");
    expect(response.status).toBe(202);
  });
});

/** Pids of the host's processes whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  return readdirSync("/proc")
    .filter((entry) => /^\d+$/.test(entry))
    .filter((entry) => {
      try {
        return readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker);
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** A port nothing listens on. */
async function freePort(): Promise<number> {
  const probe = createServer();
  await new Promise<void>((resolve) => probe.listen(0, "127.0.0.1", resolve));
  const { port } = probe.address() as { port: number };
  await new Promise((resolve) => probe.close(resolve));
  return port;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe("stopping the server", () => {
  it("kills every sandboxed test run still going", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-serve-stop-"));
    const config = loadServerConfig({
      APP_ID: "42",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: secret,
      HOST: "127.0.0.1",
      PORT: String(await freePort()),
      LOG_LEVEL: "fatal",
      AUTOGEN_DB_PATH: join(dir, "autogen.db"),
    });
    const server = await startServer(config);
    const marker = `autogen-serve-stop-${Date.now()}`;
    // Started with no abort signal, as a job that never passes its own would.
    const run = runSandboxed(["python3", "-c", "import time; time.sleep(300)", marker], {
      cwd: dir,
      timeoutMs: 300_000,
    });
    expect(await waitFor(() => processesWith(marker).length > 0, 30_000)).toBe(true);
    await server.stop();
    const result = await run;
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe("SIGKILL");
    expect(await waitFor(() => processesWith(marker).length === 0, 10_000)).toBe(true);
  });
});
