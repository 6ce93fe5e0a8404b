// Webhook deliveries counted by how the ingress answered them: accepted, duplicate, or
// rejected with a reason (read from the answer's status, so the ingress stays as it is).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { MetricRegistry } from "./metric-registry.ts";

export const DELIVERIES = "autogen_webhook_deliveries_total";
const HELP = "Webhook deliveries answered, by result (accepted, duplicate, rejected) and the reason of a rejection";

const REASONS: Record<number, string> = {
  400: "malformed",
  401: "bad-signature",
  405: "method",
  413: "too-large",
  415: "content-type",
  500: "store-error",
  503: "busy",
};

export function declareDeliveryMetrics(registry: MetricRegistry): void {
  registry.declare(DELIVERIES, HELP, "counter");
}

/** Counts the answer to a request on the webhook path once it is sent (or the connection is dropped). */
export function countDelivery(
  registry: MetricRegistry,
  webhookPath: string,
  req: IncomingMessage,
  res: ServerResponse,
): void {
  const path = (req.url ?? "").split("?")[0]?.replace(/\/+$/, "");
  if (path !== webhookPath.replace(/\/+$/, "")) return;
  let counted = false;
  const count = () => {
    if (counted) return;
    counted = true;
    const status = res.headersSent ? res.statusCode : 0;
    if (status === 202) registry.inc(DELIVERIES, HELP, { result: "accepted", reason: "" });
    else if (status === 200) registry.inc(DELIVERIES, HELP, { result: "duplicate", reason: "" });
    else
      registry.inc(DELIVERIES, HELP, {
        result: "rejected",
        reason: REASONS[status] ?? (status === 0 ? "aborted" : `status-${status}`),
      });
  };
  res.once("finish", count);
  res.once("close", count);
}
