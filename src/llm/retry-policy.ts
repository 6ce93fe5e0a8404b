// When a failed model request may be sent again: only when the server cannot be working
// on it. A connection that failed before any response, a 429 and a 5xx are resent with
// backoff; a timeout never is (the server may still be generating, and a local model
// would then work on two copies), nor a 504 (a proxy gave up, the model behind it did not).
import { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "openai";

const MAX_BACKOFF_MS = 8_000;
const MAX_RETRY_AFTER_MS = 60_000;

/** How long to wait before resending, or undefined when the request must not be resent. */
export function retryDelayMs(error: unknown, retry: number, baseMs: number): number | undefined {
  if (error instanceof APIUserAbortError || error instanceof APIConnectionTimeoutError) return undefined;
  // The SDK raises APIConnectionError only while waiting for the response (a failed or reset connection).
  if (error instanceof APIConnectionError) return backoff(retry, baseMs);
  if (!(error instanceof APIError) || error.status === undefined) return undefined;
  if (error.status === 429 || (error.status >= 500 && error.status !== 504))
    return retryAfterMs(error.headers) ?? backoff(retry, baseMs);
  return undefined;
}

function backoff(retry: number, baseMs: number): number {
  const full = Math.min(MAX_BACKOFF_MS, baseMs * 2 ** retry);
  return Math.round(full * (0.75 + Math.random() * 0.25));
}

function retryAfterMs(headers: Headers | undefined): number | undefined {
  const ms = Number.parseFloat(headers?.get("retry-after-ms") ?? "");
  if (Number.isFinite(ms) && ms >= 0) return Math.min(ms, MAX_RETRY_AFTER_MS);
  const value = headers?.get("retry-after");
  if (!value) return undefined;
  const seconds = Number.parseFloat(value);
  const wait = Number.isFinite(seconds) ? seconds * 1000 : Date.parse(value) - Date.now();
  return Number.isFinite(wait) ? Math.min(Math.max(0, wait), MAX_RETRY_AFTER_MS) : undefined;
}

export function sleep(ms: number, signal: AbortSignal | undefined): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(new APIUserAbortError());
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(new APIUserAbortError());
    };
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
