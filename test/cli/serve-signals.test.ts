// `autogen serve` stopped by SIGTERM (as a supervisor does): it exits by itself, with a
// client still holding a keep-alive connection and a webhook just acknowledged.
import { spawn } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { ROOT } from "../support/run-cli.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { postWebhook } from "../support/webhook-examples.ts";

const secret = "serve-signal-secret";

describe("autogen serve stopped by SIGTERM", () => {
  it("stops accepting and exits by itself", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-serve-signal-"));
    const child = spawn(process.execPath, [join(ROOT, "bin/autogen.js"), "serve"], {
      env: {
        PATH: process.env.PATH ?? "/usr/bin:/bin",
        HOME: dir,
        APP_ID: "42",
        PRIVATE_KEY: testPrivateKey(),
        WEBHOOK_SECRET: secret,
        HOST: "127.0.0.1",
        PORT: "0",
        LOG_LEVEL: "fatal",
        AUTOGEN_DB_PATH: join(dir, "autogen.db"),
      },
      stdio: ["ignore", "pipe", "pipe"],
    });
    const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
      child.on("exit", (code, signal) => resolve({ code, signal })),
    );
    let stdout = "";
    const url = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (d: Buffer) => {
        stdout += d.toString();
        const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(stdout);
        if (match?.[1]) resolve(match[1]);
      });
      void exited.then(() => reject(new Error(`serve exited before listening: ${stdout}`)));
    });
    // A webhook that is no command (no GitHub call), then an idle keep-alive connection.
    const response = await postWebhook(`${url}/api/github/webhooks`, secret, "star", { action: "created" }, "sig-1");
    expect(response.status).toBe(202);
    const port = Number(new URL(url).port);
    const idle = connect(port, "127.0.0.1");
    idle.on("error", () => undefined);
    await new Promise<void>((resolve) => idle.once("connect", () => resolve()));
    idle.write("GET /healthz HTTP/1.1\r\nHost: x\r\nConnection: keep-alive\r\n\r\n");
    await new Promise<void>((resolve) => idle.once("data", () => resolve()));

    child.kill("SIGTERM");
    // A hang guard, not a speed check: only a server that ignores SIGTERM gets here.
    const guard = setTimeout(() => child.kill("SIGKILL"), 60_000);
    const { code, signal } = await exited;
    clearTimeout(guard);
    idle.destroy();
    expect(signal).toBeNull();
    expect(code).toBe(0);
  });
});
