// POST <webhook path>: authenticate, then hand the delivery over; nothing else happens
// before the answer. The body is read under a size limit before the signature is
// checked, and every answer is a fixed sentence (no exception text reaches the sender).
import { isAscii } from "node:buffer";
import type { IncomingMessage, ServerResponse } from "node:http";
import { GITHUB_MAX_BODY_BYTES, type IngressLimits } from "./ingress-limits.ts";
import { InFlightBudget, readBoundedBody } from "./read-bounded-body.ts";
import { jsonShape } from "./json-syntax.ts";
import { signatureMatches } from "./verify-signature.ts";

/** An authenticated delivery: `body` is the signed text, one JSON object (checked, not parsed). */
export type Delivery = { id: string; name: string; body: string };
/** What becomes of an authenticated delivery: `accepted` (stored or handled) or `duplicate`. */
export type AcceptDelivery = (delivery: Delivery) => Promise<"accepted" | "duplicate">;
type Log = { warn: (meta: object, message: string) => void; error: (meta: object, message: string) => void };

const JSON_TYPE = /^\s*application\/json\s*(?:;|$)/i;
const DELIVERY_ID = /^[A-Za-z0-9._:-]{1,100}$/;
const EVENT_NAME = /^[a-z_]{1,64}$/;

function answer(res: ServerResponse, status: number, message: string): true {
  const body = JSON.stringify({ message });
  const headers: Record<string, string> = {
    "content-type": "application/json",
    "content-length": String(Buffer.byteLength(body)),
  };
  if (status === 503) headers["retry-after"] = "5";
  res.writeHead(status, headers).end(body);
  return true;
}

/** How long a refused request's connection stays open, discarding, so the sender can read the answer. */
const LINGER_MS = 2_000;
/**
 * Connections a request was refused on: they are only discarding now. A request pipelined
 * behind the refused one (parsed from the bytes still coming) is neither read nor stored.
 */
const refusedConnections = new WeakSet<object>();

/**
 * Refuses a request whose body is not read (too large, too many at once, wrong headers).
 * The answer is sent at once, then the connection is half-closed and what still comes is
 * discarded as it comes, never kept (for at most 2 s and GitHub's 25 MB), so the sender
 * reads the answer instead of a reset connection and GitHub's delivery log shows why;
 * then the connection is closed.
 */
function refuse(req: IncomingMessage, res: ServerResponse, status: number, message: string): true {
  const socket = req.socket;
  refusedConnections.add(socket);
  let discarded = 0;
  req.on("data", (chunk: Buffer) => {
    discarded += chunk.length;
    if (discarded > GITHUB_MAX_BODY_BYTES) socket.destroy();
  });
  req.once("end", () => socket.destroySoon());
  req.resume();
  res.once("finish", () => {
    socket.end();
    const timer = setTimeout(() => socket.destroy(), LINGER_MS);
    timer.unref();
    socket.once("close", () => clearTimeout(timer));
  });
  return answer(res, status, message);
}

/** A request that came on a refused connection: not read, not answered; the connection closes. */
function dropPipelined(req: IncomingMessage): true {
  req.socket.destroy();
  return true;
}

/**
 * What one byte of an accepted body costs in memory until the store has committed it: the
 * bytes as read, and the text handed to the store (a one-byte string for ASCII, the usual
 * case: JSON escapes what is not). A body that is not ASCII becomes a two-byte string and
 * is charged one more copy when it is complete. The HMAC and the JSON check read the bytes
 * in place; SQLite's bound UTF-8 copy lives only while its row is inserted, one at a time.
 */
const COPIES = 2;

export type IngressOptions = {
  path: string;
  secret: string;
  limits: IngressLimits;
  accept: AcceptDelivery;
  log: Log;
  /** Told the size of each body read whole once it and its copies are let go (see large-body-collector.ts). */
  released?: ((bytes: number) => void) | undefined;
};

export function webhookIngress(options: IngressOptions) {
  const budget = new InFlightBudget(options.limits.maxInFlightBytes);
  return async (req: IncomingMessage, res: ServerResponse): Promise<boolean> => {
    const path = (req.url ?? "").split("?")[0]?.replace(/\/+$/, "");
    if (path !== options.path.replace(/\/+$/, "")) return false;
    if (refusedConnections.has(req.socket)) return dropPipelined(req);
    if (req.method !== "POST") return answer(res, 405, "only POST is accepted here");
    const contentType = req.headers["content-type"];
    if (typeof contentType !== "string" || !JSON_TYPE.test(contentType))
      return refuse(req, res, 415, "the content type must be application/json");
    const id = req.headers["x-github-delivery"];
    const name = req.headers["x-github-event"];
    const signature = req.headers["x-hub-signature-256"];
    if (
      typeof id !== "string" ||
      !DELIVERY_ID.test(id) ||
      typeof name !== "string" ||
      !EVENT_NAME.test(name) ||
      typeof signature !== "string"
    ) {
      return refuse(req, res, 400, "X-GitHub-Delivery, X-GitHub-Event and X-Hub-Signature-256 are required");
    }
    const read = await readBoundedBody(req, options.limits.maxBodyBytes, budget, COPIES);
    // Refused while this one was being read (it was pipelined behind the refused request).
    if (refusedConnections.has(req.socket)) {
      if (read.ok) {
        read.release();
        options.released?.(read.body.length);
      }
      return dropPipelined(req);
    }
    if (!read.ok) {
      if (read.reason === "too-large") {
        // GitHub marks the delivery failed; the operator can raise the limit and redeliver it.
        options.log.warn(
          {
            deliveryId: id,
            event: name,
            maxBodyBytes: options.limits.maxBodyBytes,
            contentLength: req.headers["content-length"],
          },
          "webhook body over the limit refused (AUTOGEN_WEBHOOK_MAX_BODY_BYTES)",
        );
        return refuse(req, res, 413, `the body is larger than ${options.limits.maxBodyBytes} bytes`);
      }
      if (read.reason === "busy") return refuse(req, res, 503, BUSY);
      res.destroy();
      return true;
    }
    // Not ASCII: its text will be a two-byte string, one more copy's worth.
    const extra = isAscii(read.body) ? 0 : read.body.length;
    if (extra > 0 && !budget.take(extra)) {
      read.release();
      options.released?.(read.body.length);
      return answer(res, 503, BUSY);
    }
    // The body and its copies stay charged until the store has committed them (or they are refused).
    try {
      return await authenticateAndStore(read.body, { id, name, signature }, res, options);
    } finally {
      read.release();
      budget.give(extra);
      options.released?.(read.body.length);
    }
  };
}

const BUSY = "too many bodies are being received; retry later";

async function authenticateAndStore(
  body: Buffer,
  headers: { id: string; name: string; signature: string },
  res: ServerResponse,
  options: { secret: string; accept: AcceptDelivery; log: Log },
): Promise<true> {
  const { id, name, signature } = headers;
  if (!signatureMatches(options.secret, body, signature)) return answer(res, 401, "the signature does not match");
  const shape = jsonShape(body);
  if (shape === "invalid") return answer(res, 400, "the body is not valid JSON");
  if (shape === "not-object") return answer(res, 400, "the body is not a JSON object");
  try {
    const outcome = await options.accept({ id, name, body: body.toString("utf8") });
    return outcome === "duplicate" ? answer(res, 200, "already received") : answer(res, 202, "accepted");
  } catch (error) {
    options.log.error({ err: error, deliveryId: id, event: name }, "webhook delivery not accepted");
    return answer(res, 500, "the delivery could not be stored; GitHub may redeliver it");
  }
}
