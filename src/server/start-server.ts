// `autogen-bot serve`: our app on a Probot instance, behind our own bounded HTTP server (the
// webhook ingress and the health endpoint), configured from the validated environment.
import { createServer, type Server as HttpServer } from "node:http";
import type { DestinationStream } from "pino";
import { Probot, type ProbotOctokit } from "probot";
import { largeBodyCollector } from "./large-body-collector.ts";
import { DEFAULT_INBOX_OPTIONS, InboxProcessor, type InboxOptions } from "../jobs/inbox-processor.ts";
import type { Store } from "../jobs/store.ts";
import { appFromConfig } from "../app/app-from-config.ts";
import { resilientOctokit } from "../forge/resilient-octokit.ts";
import type { ServerConfig } from "../config/env-config.ts";
import { killAllSandboxes } from "../verify/sandbox/live-sandboxes.ts";
import { VERSION } from "../version.ts";
import { healthHandler } from "./health-handler.ts";
import { applyConnectionLimits, DEFAULT_INGRESS_LIMITS, serverOptions, type IngressLimits } from "./ingress-limits.ts";
import { webhookIngress } from "./webhook-ingress.ts";
import { settlesWithin } from "../jobs/worker-pool.ts";
import { DEFAULT_OPS_CONFIG, type OpsConfig } from "../config/ops-config.ts";
import { githubMetrics } from "../metrics/github-metrics.ts";
import { MetricRegistry } from "../metrics/metric-registry.ts";
import { opsRoutes } from "../ops/ops-routes.ts";
import { openJobHistory } from "../ops/pg-job-history.ts";
import { dashboardRoute } from "../dashboard/dashboard-route.ts";
import { withLogContext } from "../jobs/log-context.ts";
import { serverLog } from "./server-log.ts";

export type RunningServer = {
  probot: Probot;
  http: HttpServer;
  url: string;
  store: Store;
  inbox: InboxProcessor;
  stop: () => Promise<void>;
};
export type ServerOptions = {
  limits?: Partial<IngressLimits>;
  inbox?: Partial<Omit<InboxOptions, "log">>;
  /** How long a stop waits for running jobs and deliveries in hand before it goes on (default 20 s). */
  shutdownGraceMs?: number;
  /** The Octokit class Probot builds clients from (default: bounded retries and rate-limit waits). */
  Octokit?: typeof ProbotOctokit;
  /** /metrics and the dashboard (default: metrics open, dashboard off). */
  ops?: OpsConfig;
  /** Where log lines go (JSON lines; default: stdout in Probot's format). */
  logDestination?: DestinationStream;
};

export async function startServer(config: ServerConfig, options: ServerOptions = {}): Promise<RunningServer> {
  const limits = { ...DEFAULT_INGRESS_LIMITS, maxBodyBytes: config.maxWebhookBodyBytes, ...options.limits };
  const live = new MetricRegistry();
  const probot = new Probot({
    appId: config.appId,
    privateKey: config.privateKey,
    secret: config.webhookSecret,
    logLevel: config.logLevel,
    // Every line carries the job id and delivery id it was written for (server-log.ts).
    log: await serverLog({ level: config.logLevel, env: process.env, destination: options.logDestination }),
    ...(config.baseUrl ? { baseUrl: config.baseUrl } : {}),
    Octokit: (options.Octokit ?? resilientOctokit()).plugin(githubMetrics(live)) as typeof ProbotOctokit,
  });
  const handle = await appFromConfig(config);
  await probot.load(handle.app, { cwd: process.cwd(), addHandler: () => undefined });
  const health = healthHandler(async () => {
    const [queue, inbox] = await Promise.all([handle.store.queueDepth(), handle.store.inboxDepth()]);
    return {
      status: "ok",
      version: VERSION,
      llm: config.llm ? "configured" : "model-free",
      store: handle.store.kind,
      queue,
      inbox,
    };
  });
  const opsConfig = options.ops ?? DEFAULT_OPS_CONFIG;
  // The dashboard and /metrics read the store the server writes: Postgres or the SQLite file.
  const history = openJobHistory(config);
  const ops = opsRoutes({
    config: opsConfig,
    webhookPath: config.webhookPath,
    history,
    log: probot.log,
    live,
    dashboard: dashboardRoute({ access: opsConfig.dashboard, history, probot, baseUrl: config.baseUrl }),
  });
  // The handlers (gate, repository config: GitHub calls) run here, after the answer.
  // A shared store: also look now and then for deliveries another instance stored or left behind.
  const pollMs = handle.store.leaseRenewMs === undefined ? undefined : 5_000;
  // Large bodies' memory is given back when they are done with (their bytes at the ingress, their objects in the inbox).
  const collector = largeBodyCollector();
  const inbox = new InboxProcessor(
    handle.store,
    (delivery) => withLogContext({ deliveryId: delivery.id }, () => probot.receive(delivery as never)),
    {
      ...DEFAULT_INBOX_OPTIONS,
      pollMs,
      released: collector.released,
      ...options.inbox,
      log: probot.log,
    },
  );
  inbox.kick();
  const ingress = webhookIngress({
    path: config.webhookPath,
    secret: config.webhookSecret,
    limits,
    log: probot.log,
    released: collector.released,
    accept: async (delivery) => {
      if (!(await handle.store.receive(delivery.id, delivery.name, delivery.body))) return "duplicate";
      inbox.kick();
      return "accepted";
    },
  });
  const http = createServer(serverOptions(limits), (req, res) => {
    if (health(req, res) || ops.handle(req, res)) return;
    void ingress(req, res).then((handled) => {
      if (!handled)
        res.writeHead(404, { "content-type": "application/json" }).end(JSON.stringify({ message: "not found" }));
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
    // Stop accepting, give jobs a bounded time to checkpoint, end the test runs, close.
    // What did not finish stays in the store: pending deliveries and interrupted jobs are
    // taken up again, once, at the next start.
    stop: async () => {
      const grace = options.shutdownGraceMs ?? 20_000;
      const closed = new Promise<void>((resolve) => http.close(() => resolve()));
      http.closeIdleConnections();
      const [inboxDone, jobsDone] = await Promise.all([
        settlesWithin(inbox.stop(), grace),
        handle.pool()?.stop(grace) ?? Promise.resolve(true),
      ]);
      if (!inboxDone || !jobsDone)
        probot.log.warn(
          { graceMs: grace, inboxDone, jobsDone },
          "shutdown grace ran out; unfinished work resumes at the next start",
        );
      killAllSandboxes();
      collector.stop();
      http.closeAllConnections();
      await closed;
      await ops.close();
      await handle.store.close();
    },
  };
}
