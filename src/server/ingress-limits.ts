// The bounds every webhook connection lives within. GitHub caps a webhook payload at
// 25 MB and gives up on a delivery after 10 s, so anything bigger or slower is not GitHub;
// the events this App handles are far smaller still (DEFAULT_MAX_BODY_BYTES).
import type { Server } from "node:http";
import { DEFAULT_MAX_BODY_BYTES, GITHUB_MAX_BODY_BYTES } from "../config/body-limits.ts";

export type IngressLimits = {
  /** Largest body accepted, enforced while reading (GitHub's own cap: 25 MB; ours: 4 MiB by default). */
  maxBodyBytes: number;
  /** Bytes of webhook bodies held in memory at once, across all connections. */
  maxInFlightBytes: number;
  /** Time allowed to receive the request headers. */
  headersTimeoutMs: number;
  /** Time allowed to receive the whole request. */
  requestTimeoutMs: number;
  /** How long an idle keep-alive connection stays open. */
  keepAliveTimeoutMs: number;
  /** A socket with no traffic at all for this long is closed. */
  idleTimeoutMs: number;
  /** Open connections at once; more are refused by the kernel-side accept. */
  maxConnections: number;
  /** How often Node checks the header and request timeouts. */
  checkIntervalMs: number;
};

export { DEFAULT_MAX_BODY_BYTES, GITHUB_MAX_BODY_BYTES };

export const DEFAULT_INGRESS_LIMITS: IngressLimits = {
  maxBodyBytes: DEFAULT_MAX_BODY_BYTES,
  maxInFlightBytes: 64 * 1024 * 1024,
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  idleTimeoutMs: 15_000,
  maxConnections: 256,
  checkIntervalMs: 1_000,
};

/** The http.createServer options that carry the limits (the check interval is fixed at construction). */
export function serverOptions(limits: IngressLimits) {
  return {
    headersTimeout: limits.headersTimeoutMs,
    requestTimeout: limits.requestTimeoutMs,
    keepAliveTimeout: limits.keepAliveTimeoutMs,
    connectionsCheckingInterval: limits.checkIntervalMs,
    maxHeaderSize: 16 * 1024,
  };
}

export function applyConnectionLimits(server: Server, limits: IngressLimits): void {
  server.maxConnections = limits.maxConnections;
  server.timeout = limits.idleTimeoutMs;
  server.maxRequestsPerSocket = 100;
}
