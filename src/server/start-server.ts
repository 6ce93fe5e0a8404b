// `autogen serve`: our app on a Probot instance, behind our own bounded HTTP server (the
// webhook ingress and the health endpoint), configured from the validated environment.
import { createServer, type Server as HttpServer } from "node:http";
import { Probot, type ProbotOctokit } from "probot";
import { DEFAULT_INBOX_OPTIONS, InboxProcessor, type InboxOptions } from "../jobs/inbox-processor.ts";
import type { JobStore } from "../jobs/job-store.ts";
import { appFromConfig } from "../app/app-from-config.ts";
import type { ServerConfig } from "../config/env-config.ts";
import { killAllSandboxes } from "../verify/sandbox/live-sandboxes.ts";
import { VERSION } from "../version.ts";
import { healthHandler } from "./health-handler.ts";
import { applyConnectionLimits, DEFAULT_INGRESS_LIMITS, serverOptions, type IngressLimits } from "./ingress-limits.ts";
import { webhookIngress } from "./webhook-ingress.ts";

export type RunningServer = { probot: Probot; http: HttpServer; url: string; store: JobStore; inbox: InboxProcessor; stop: () => Promise<void> };
export type ServerOptions = {
  limits?: Partial<IngressLimits>;
  inbox?: Partial<Omit<InboxOptions, "log">>;
  /** The Octokit class Probot builds clients from (tests turn its retries off). */
  Octokit?: typeof ProbotOctokit;
};

export async function startServer(config: ServerConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const limits = { ...DEFAULT_INGRESS_LIMITS, ...options.limits };
  const probot = new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    logLevel: config.logLevel,
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    ...(options.Octokit ? { Octokit: options.Octokit } : {}),
  });
  const handle = appFromConfig(config);
  await probot.load(handle.app, { cwd: process.cwd(), addHandler: () => undefined });
  const health = healthHandler(() => {
    const depth = handle.store.queueDepth();
    return { status: "ok", version: VERSION, llm: config.llm ? "configured" : "model-free", store: "sqlite", queue: depth, inbox: handle.store.inboxDepth() };
  });
  // The handlers (gate, repository config: GitHub calls) run here, after the answer.
  const inbox = new InboxProcessor(handle.store, (delivery) => probot.receive(delivery as never), { ...DEFAULT_INBOX_OPTIONS, ...options.inbox, log: probot.log });
  inbox.kick();
  const ingress = webhookIngress({
    path: config.webhookPath,
    secret: config.webhookSecret,
    limits,
    log: probot.log,
    accept: async (delivery) => {
      if (!handle.store.receive(delivery.id, delivery.name, delivery.body)) return "duplicate";
      inbox.kick();
      return "accepted";
    },
  });
  const http = createServer(serverOptions(limits), (req, res) => {
    if (health(req, res)) return;
    void ingress(req, res).then((handled) => {
      if (!handled) res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "not found" }));
    });
  });
  applyConnectionLimits(http, limits);
  await new Promise<void>((resolve, reject) => {
    http.once("error", reject);
    http.listen({ port: config.port, host: config.host }, () => {
      http.off("error", reject);
      resolve();
    });
  });
  const address = http.address();
  const port = typeof address === "object" && address ? address.port : config.port;
  return {
    probot,
    http,
    store: handle.store,
    inbox,
    url: `http://${config.host}:${port}`,
    stop: async () => {
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      // The test runs go first: a job that is slow to see its abort must not keep a
      // sandbox running while the server waits for it.
      killAllSandboxes();
      await inbox.stop();
      await handle.pool()?.stop();
      http.closeAllConnections();
      await closed;
      handle.store.close();
    },
  };
}
