// Reads a request body into memory only up to a limit, counting while it streams, so an
// oversized body is refused before it is buffered, whatever Content-Length claims.
import type { IncomingMessage } from "node:http";

/**
 * A body read: its bytes stay charged to the budget until `release` (the caller releases
 * once the body and every copy made of it are gone: after the store committed it).
 */
export type BodyResult =
  { ok: true; body: Buffer; release: () => void } | { ok: false; reason: "too-large" | "busy" | "aborted" };

/** Bytes of bodies being read right now, shared by every request of one server. */
export class InFlightBudget {
  private used = 0;
  private readonly limit: number;

  constructor(limit: number) {
    this.limit = limit;
  }

  take(bytes: number): boolean {
    if (this.used + bytes > this.limit) return false;
    this.used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.used = Math.max(0, this.used - bytes);
  }

  get inUse(): number {
    return this.used;
  }
}

/** `copies`: how many bytes of memory each byte received will cost until released (the buffer and what the caller makes of it). */
export function readBoundedBody(
  req: IncomingMessage,
  maxBytes: number,
  budget: InFlightBudget,
  copies = 1,
): Promise<BodyResult> {
  const declared = Number(req.headers["content-length"] ?? Number.NaN);
  if (Number.isFinite(declared) && declared > maxBytes) return Promise.resolve({ ok: false, reason: "too-large" });
  // Every body is counted against the budget as its bytes come, so a sender holds only what
  // it has sent (one that declares the limit and sends a byte holds a byte). A declared
  // length is allocated once, at its first bytes, and filled: one copy of the body, not
  // chunks plus their concatenation (an unfilled allocation's pages are not resident, so
  // memory follows the bytes received). A chunked body is gathered and joined.
  const known = Number.isInteger(declared) && declared >= 0 ? declared : undefined;
  let into: Buffer | undefined;
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let held = 0;
    let settled = false;
    const finish = (result: BodyResult) => {
      if (settled) return;
      settled = true;
      if (!result.ok) budget.give(held);
      req.off("data", onData);
      if (!result.ok) {
        chunks.length = 0;
        // Stop reading; the caller answers and closes the connection.
        req.pause();
      }
      resolve(result);
    };
    const onData = (chunk: Buffer) => {
      if (size + chunk.length > (known ?? maxBytes)) return finish({ ok: false, reason: "too-large" });
      if (!budget.take(chunk.length * copies)) return finish({ ok: false, reason: "busy" });
      held += chunk.length * copies;
      if (known !== undefined) {
        into ??= Buffer.allocUnsafe(known);
        chunk.copy(into, size);
      } else chunks.push(chunk);
      size += chunk.length;
    };
    req.on("data", onData);
    req.once("end", () => {
      // Node ends a request early only when the connection broke (then "aborted" came first).
      if (known !== undefined && size !== known) return finish({ ok: false, reason: "aborted" });
      let released = false;
      const release = () => {
        if (!released) budget.give(held);
        released = true;
      };
      finish({
        ok: true,
        body: known === undefined ? Buffer.concat(chunks, size) : (into ?? Buffer.alloc(0)),
        release,
      });
    });
    req.once("aborted", () => finish({ ok: false, reason: "aborted" }));
    req.once("error", () => finish({ ok: false, reason: "aborted" }));
    req.once("close", () => finish({ ok: false, reason: "aborted" }));
  });
}
