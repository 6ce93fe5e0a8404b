// POST <webhook path>: authenticate, then hand the delivery over; nothing else happens
// before the answer. The body is read under a size limit before the signature is
// checked, and every answer is a fixed sentence (no exception text reaches the sender).
import type { IncomingMessage, ServerResponse } from "node:http";
import type { IngressLimits } from "./ingress-limits.ts";
import { InFlightBudget, readBoundedBody } from "./read-bounded-body.ts";
import { signatureMatches } from "./verify-signature.ts";

/** An authenticated delivery: `body` is the signed text, `payload` that text parsed. */
export type Delivery = { id: string; name: string; payload: Record<string, unknown>; body: string };
/** What becomes of an authenticated delivery: `accepted` (stored or handled) or `duplicate`. */
export type AcceptDelivery = (delivery: Delivery) => Promise<"accepted" | "duplicate">;
type Log = { warn: (meta: object, message: string) => void; error: (meta: object, message: string) => void };

const JSON_TYPE = /^\s*application\/json\s*(?:;|$)/i;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;

function answer(res: ServerResponse, status: number, message: string, close = false): true {
  const body = JSON.stringify({ message });
  const headers: Record<string, string> = { "content-type": "application/json", "content-length": String(Buffer.byteLength(body)) };
  if (close) headers.connection = "close";
  if (status === 503) headers["retry-after"] = "5";
  res.writeHead(status, headers).end(body);
  // A refused body is not read: close the connection rather than drain it.
  if (close) res.once("finish", () => res.socket?.destroySoon());
  return true;
}

export function webhookIngress(options: { path: string; secret: string; limits: IngressLimits; accept: AcceptDelivery; log: Log }) {
  const budget = new InFlightBudget(options.limits.maxInFlightBytes);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? "").split("?")[0]?.replace(/\/+$/, "");
    if (path !== options.path.replace(/\/+$/, "")) return false;
    if (req.method !== "POST") return answer(res, 405, "only POST is accepted here");
    const contentType = req.headers["content-type"];
    if (typeof contentType !== "string" || !JSON_TYPE.test(contentType)) return answer(res, 415, "the content type must be application/json", true);
    const id = req.headers["x-github-delivery"];
    const name = req.headers["x-github-event"];
    const signature = req.headers["x-hub-signature-256"];
    if (typeof id !== "string" || !DELIVERY_ID.test(id) || typeof name !== "string" || !EVENT_NAME.test(name) || typeof signature !== "string") {
      return answer(res, 400, "X-GitHub-Delivery, X-GitHub-Event and X-Hub-Signature-256 are required", true);
    }
    const read = await readBoundedBody(req, options.limits.maxBodyBytes, budget);
    if (!read.ok) {
      if (read.reason === "too-large") return answer(res, 413, `the body is larger than ${options.limits.maxBodyBytes} bytes`, true);
      if (read.reason === "busy") return answer(res, 503, "too many bodies are being received; retry later", true);
      res.destroy();
      return true;
    }
    if (!signatureMatches(options.secret, read.body, signature)) return answer(res, 401, "the signature does not match");
    const text = read.body.toString("utf8");
    let payload: unknown;
    try {
      payload = JSON.parse(text);
    } catch {
      return answer(res, 400, "the body is not valid JSON");
    }
    if (typeof payload !== "object" || payload === null || Array.isArray(payload)) return answer(res, 400, "the body is not a JSON object");
    try {
      const outcome = await options.accept({ id, name, payload: payload as Record<string, unknown>, body: text });
      return outcome === "duplicate" ? answer(res, 200, "already received") : answer(res, 202, "accepted");
    } catch (error) {
      options.log.error({ err: error, deliveryId: id, event: name }, "webhook delivery not accepted");
      return answer(res, 500, "the delivery could not be stored; GitHub may redeliver it");
    }
  };
}
