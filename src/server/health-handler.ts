// GET /healthz: a liveness and readiness answer for load balancers and operators.
import type { IncomingMessage, ServerResponse } from "node:http";

export type HealthReport = { status: "ok"; version: string; [detail: string]: unknown };

export function healthHandler(report: () => HealthReport) {
  return (req: IncomingMessage, res: ServerResponse): boolean => {
    const path = (req.url ?? "").split("?")[0];
    if (req.method !== "GET" || path !== "/healthz") return false;
    res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(report()));
    return true;
  };
}
