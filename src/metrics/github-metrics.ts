// An Octokit plugin counting the App's GitHub API calls (by method and status) and keeping
// the rate limit GitHub reports in each answer's X-RateLimit-* headers, per resource.
import type { MetricRegistry } from "./metric-registry.ts";

type Headers = Record<string, string | number | undefined>;
type RequestOptions = { method?: string; url?: string };
type Hooked = {
  hook: {
    after: (
      name: "request",
      hook: (response: { status: number; headers: Headers }, options: RequestOptions) => void,
    ) => void;
    error: (name: "request", hook: (error: unknown, options: RequestOptions) => unknown) => void;
  };
};

export const GITHUB_REQUESTS = "autogen_github_requests_total";
export const GITHUB_RATE_REMAINING = "autogen_github_rate_limit_remaining";
const REQUESTS_HELP = "GitHub API requests answered, by method and HTTP status (0: no answer)";

export function declareGithubMetrics(registry: MetricRegistry): void {
  registry.declare(GITHUB_REQUESTS, REQUESTS_HELP, "counter");
  registry.declare(
    GITHUB_RATE_REMAINING,
    "Requests left in the current rate-limit window, as GitHub last reported it, by resource",
    "gauge",
  );
  registry.declare(
    "autogen_github_rate_limit_limit",
    "The rate-limit window's size, as GitHub last reported it, by resource",
    "gauge",
  );
}

function record(registry: MetricRegistry, method: string, status: number, headers: Headers | undefined): void {
  registry.inc(GITHUB_REQUESTS, REQUESTS_HELP, { method: method.toUpperCase(), status: String(status) });
  const remaining = Number(headers?.["x-ratelimit-remaining"]);
  const limit = Number(headers?.["x-ratelimit-limit"]);
  const resource = String(headers?.["x-ratelimit-resource"] ?? "core");
  if (headers?.["x-ratelimit-remaining"] !== undefined && Number.isFinite(remaining))
    registry.set(GITHUB_RATE_REMAINING, "", { resource }, remaining);
  if (headers?.["x-ratelimit-limit"] !== undefined && Number.isFinite(limit))
    registry.set("autogen_github_rate_limit_limit", "", { resource }, limit);
}

export function githubMetrics(registry: MetricRegistry) {
  declareGithubMetrics(registry);
  return (octokit: unknown) => {
    const o = octokit as Hooked;
    o.hook.after("request", (response, options) =>
      record(registry, options.method ?? "GET", response.status, response.headers),
    );
    o.hook.error("request", (error, options) => {
      const e = error as { status?: number; response?: { headers?: Headers } };
      record(registry, options.method ?? "GET", typeof e.status === "number" ? e.status : 0, e.response?.headers);
      throw error;
    });
    return {};
  };
}
