// The Octokit the App's clients are built from: Probot's (throttling and retry plugins)
// with bounds. Primary and secondary rate limits are waited out as GitHub says
// (Retry-After, X-RateLimit-Reset) a few times when the wait is short; a 429 honours its
// Retry-After (plugin-retry would guess); 5xx answers and network errors are retried
// with growing delays. Past the bounds the error reaches the caller, whose own retry
// (the inbox, the job) takes over with a longer backoff: nothing retries forever.
import { ProbotOctokit } from "probot";

export type ResilienceOptions = {
  /** Retries of one request, per kind of failure. */
  retries: number;
  /** Longest wait, in seconds, that is waited out in-process. */
  maxWaitSeconds: number;
  /** Milliseconds per second of wait (tests shrink it). */
  msPerSecond: number;
};

export const DEFAULT_RESILIENCE: ResilienceOptions = { retries: 3, maxWaitSeconds: 60, msPerSecond: 1_000 };

type Log = { warn: (meta: object, message: string) => void };
type RequestOptions = { method: string; url: string; request?: { retryCount?: number } };
type HttpError = Error & { status?: number; response?: { headers?: Record<string, string | undefined> } };
type HookedOctokit = {
  hook: {
    wrap: (
      name: "request",
      wrapper: (request: (options: RequestOptions) => Promise<unknown>, options: RequestOptions) => Promise<unknown>,
    ) => void;
  };
  log: Log;
};

/** Retry-After, in seconds: a number, or an HTTP date. */
export function retryAfterSeconds(header: string | undefined): number | undefined {
  if (!header) return undefined;
  if (/^\d+$/.test(header.trim())) return Number(header.trim());
  const at = Date.parse(header);
  return Number.isNaN(at) ? undefined : Math.max(0, Math.ceil((at - Date.now()) / 1000));
}

/** A 429 (too many requests) waits as long as its Retry-After says, a bounded number of times. */
function honourRetryAfter(options: ResilienceOptions) {
  return (octokit: unknown) => {
    const o = octokit as HookedOctokit;
    o.hook.wrap("request", async (request, requestOptions) => {
      for (let attempt = 0; ; attempt++) {
        try {
          return await request(requestOptions);
        } catch (error) {
          const e = error as HttpError;
          const wait = e.status === 429 ? (retryAfterSeconds(e.response?.headers?.["retry-after"]) ?? 1) : undefined;
          if (wait === undefined || attempt >= options.retries || wait > options.maxWaitSeconds) throw error;
          o.log.warn(
            { method: requestOptions.method, url: requestOptions.url, retryAfter: wait, attempt: attempt + 1 },
            "github answered 429; waiting as Retry-After says",
          );
          await new Promise((resolve) => setTimeout(resolve, wait * options.msPerSecond));
        }
      }
    });
    return {};
  };
}

export function resilientOctokit(options: ResilienceOptions = DEFAULT_RESILIENCE): typeof ProbotOctokit {
  const limited =
    (kind: string) => (retryAfter: number, request: RequestOptions, octokit: { log: Log }, retryCount: number) => {
      const retry = retryCount < options.retries && retryAfter <= options.maxWaitSeconds;
      octokit.log.warn(
        { method: request.method, url: request.url, retryAfter, retryCount, retry },
        kind === "secondary" ? "github secondary rate limit" : "github rate limit",
      );
      return retry;
    };
  return ProbotOctokit.plugin(honourRetryAfter(options)).defaults({
    throttle: {
      onRateLimit: limited("primary"),
      onSecondaryRateLimit: limited("secondary"),
      retryAfterBaseValue: options.msPerSecond,
    },
    // 429 is ours (above), rate-limit 403s are the throttling plugin's; 5xx and network errors are retried here.
    retry: {
      retries: options.retries,
      retryAfterBaseValue: options.msPerSecond,
      doNotRetry: [400, 401, 403, 404, 410, 422, 429, 451],
    },
  }) as typeof ProbotOctokit;
}
