// GET /metrics: this process's counters (deliveries, GitHub calls) and the job history's
// figures in Prometheus's text format. With a token configured, a scrape must send it as
// a bearer token.
import { timingSafeEqual } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
import type { JobHistory } from "./job-history.ts";
import { VERSION } from "../version.ts";
import { jobMetrics } from "./job-metrics.ts";
import type { MetricRegistry } from "../metrics/metric-registry.ts";

export const METRICS_CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8";

type Log = { error: (meta: object, message: string) => void };

export function bearerMatches(header: string | undefined, token: string): boolean {
  const given = Buffer.from(/^Bearer (.+)$/i.exec(header ?? "")?.[1] ?? "");
  const wanted = Buffer.from(token);
  return given.length === wanted.length && timingSafeEqual(given, wanted);
}

export function metricsHandler(options: {
  live: MetricRegistry;
  history: JobHistory;
  token?: string | undefined;
  log: Log;
  now?: () => number;
}) {
  const now = options.now ?? Date.now;
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? "").split("?")[0];
    if (path !== "/metrics") return false;
    if (req.method !== "GET") {
      res.writeHead(405, { "content-type": "text/plain" }).end("only GET is accepted here\n");
      return true;
    }
    if (options.token && !bearerMatches(req.headers.authorization, options.token)) {
      res
        .writeHead(401, { "content-type": "text/plain", "www-authenticate": "Bearer" })
        .end("a bearer token is required\n");
      return true;
    }
    jobMetrics(options.history, now()).then(
      (derived) => {
        const info = `# HELP autogen_build_info The running version\n# TYPE autogen_build_info gauge\nautogen_build_info{version="${VERSION.replace(/["\\\n]/g, "")}"} 1\n`;
        res
          .writeHead(200, { "content-type": METRICS_CONTENT_TYPE })
          .end(info + options.live.render() + derived.render());
      },
      (error: unknown) => {
        options.log.error({ err: error }, "metrics could not be read from the job history");
        res.writeHead(500, { "content-type": "text/plain" }).end("metrics unavailable\n");
      },
    );
    return true;
  };
}
