// `autogen serve`: the Probot server with our app, configured from the validated
// environment (HOST honoured), plus the health endpoint.
import type { Server as HttpServer } from "node:http";
import { Probot, Server } from "probot";
import { appFromConfig } from "../app/app-from-config.ts";
import type { ServerConfig } from "../config/env-config.ts";
import { killAllSandboxes } from "../verify/sandbox/live-sandboxes.ts";
import { VERSION } from "../version.ts";
import { healthHandler } from "./health-handler.ts";

export type RunningServer = { server: Server; http: HttpServer; url: string; stop: () => Promise<void> };

export async function startServer(config: ServerConfig): Promise<RunningServer> {
  const ProbotWithConfig = Probot.defaults({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    logLevel: config.logLevel,
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
  });
  const server = new Server({
    Probot: ProbotWithConfig,
    host: config.host,
    port: config.port,
    webhookPath: config.webhookPath,
  });
  const handle = appFromConfig(config);
  server.addHandler(
    healthHandler(() => {
      const depth = handle.store.queueDepth();
      return { status: "ok", version: VERSION, llm: config.llm ? "configured" : "model-free", store: "sqlite", queue: depth };
    }),
  );
  await server.load(handle.app);
  const http = await server.start();
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    server,
    http,
    url: `http://${config.host}:${port}`,
    stop: async () => {
      // The test runs go first: a job that is slow to see its abort must not keep a
      // sandbox running while the server waits for it.
      killAllSandboxes();
      await handle.pool()?.stop();
      await server.stop();
      handle.store.close();
    },
  };
}
