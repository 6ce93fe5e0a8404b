// GET /healthz: a liveness and readiness answer for load balancers and operators.
import type { IncomingMessage, ServerResponse } from "node:http";

export type HealthReport = { status: "ok"; version: string; [detail: string]: unknown };

/** The report may read a network database: when it cannot, the answer is 503 (not ready). */
export function healthHandler(report: () => HealthReport | Promise<HealthReport>) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/healthz") return false;
    void Promise.resolve()
      .then(report)
      .then(
        (body) => res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(body)),
        () =>
          res
            .writeHead(503, { "content-type": "application/json" })
            .end(JSON.stringify({ status: "unavailable", reason: "the job store cannot be read" })),
      );
    return true;
  };
}
