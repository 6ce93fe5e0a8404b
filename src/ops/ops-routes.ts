// The operator's endpoints on `autogen-bot serve`'s server: /metrics and (when turned on)
// /dashboard, both reading the job history; the in-process counters they share.
import type { IncomingMessage, ServerResponse } from "node:http";
import type { OpsConfig } from "../config/ops-config.ts";
import { countDelivery, declareDeliveryMetrics } from "../metrics/delivery-metrics.ts";
import { MetricRegistry } from "../metrics/metric-registry.ts";
import { metricsHandler } from "./metrics-handler.ts";
import type { JobHistory } from "./job-history.ts";

type Log = {
  error: (meta: object, message: string) => void;
  warn: (meta: object, message: string) => void;
  info: (meta: object, message: string) => void;
};
export type Route = (req: IncomingMessage, res: ServerResponse) => boolean;

export type OpsRoutes = {
  /** This process's counters (the GitHub client plugin writes here too). */
  live: MetricRegistry;
  /** Answers /metrics and /dashboard requests; false for any other path. */
  handle: Route;
  close: () => Promise<void>;
};

export function opsRoutes(options: {
  config: OpsConfig;
  webhookPath: string;
  history: JobHistory;
  log: Log;
  dashboard?: Route | undefined;
  live?: MetricRegistry;
}): OpsRoutes {
  const live = options.live ?? new MetricRegistry();
  declareDeliveryMetrics(live);
  const metrics = options.config.metrics.enabled
    ? metricsHandler({ live, history: options.history, token: options.config.metrics.token, log: options.log })
    : undefined;
  return {
    live,
    handle: (req, res) => {
      countDelivery(live, options.webhookPath, req, res);
      if (metrics?.(req, res)) return true;
      return options.dashboard?.(req, res) ?? false;
    },
    close: () => options.history.close(),
  };
}
