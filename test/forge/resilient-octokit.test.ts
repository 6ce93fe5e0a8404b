// The App's Octokit against GitHub's failure answers (nock): 429 with Retry-After, the
// secondary rate limit's 403, the primary limit's 403, 502s; bounded, never forever.
import nock from "nock";
import { describe, expect, it } from "vitest";
import { resilientOctokit, retryAfterSeconds } from "../../src/forge/resilient-octokit.ts";
import { useHttpMock } from "../support/http-mock.ts";

useHttpMock();

const API = "https://api.github.com";
const PATH = "/repos/octo-org/shop/collaborators/maintainer/permission";

function client() {
  const warnings: Array<Record<string, unknown>> = [];
  const log = {
    debug: () => undefined,
    info: () => undefined,
    warn: (meta: unknown) => void warnings.push(meta as Record<string, unknown>),
    error: () => undefined,
  };
  // One "second" of Retry-After is a millisecond here; the counts are what is checked.
  const Octokit = resilientOctokit({ retries: 3, maxWaitSeconds: 60, msPerSecond: 1 });
  const octokit = new Octokit({ auth: "ghs_test", log });
  const get = () => octokit.request(`GET ${PATH}`);
  return { get, warnings };
}

describe("resilient Octokit", () => {
  it("waits out a 429 as its Retry-After says, then succeeds", async () => {
    nock(API).get(PATH).reply(429, { message: "Too Many Requests" }, { "retry-after": "7" });
    nock(API).get(PATH).reply(200, { permission: "write" });
    const { get, warnings } = client();
    const response = await get();
    expect(response.data).toEqual({ permission: "write" });
    expect(warnings).toEqual([expect.objectContaining({ retryAfter: 7, attempt: 1 })]);
  });

  it("retries after a secondary rate limit 403 with Retry-After", async () => {
    nock(API)
      .get(PATH)
      .reply(
        403,
        { message: "You have exceeded a secondary rate limit. Please wait a few minutes before you try again." },
        { "retry-after": "2" },
      );
    nock(API).get(PATH).reply(200, { permission: "admin" });
    const { get, warnings } = client();
    expect((await get()).data).toEqual({ permission: "admin" });
    expect(warnings).toEqual([expect.objectContaining({ retryAfter: 2, retry: true })]);
  });

  it("retries after the primary rate limit resets", async () => {
    const reset = String(Math.floor(Date.now() / 1000));
    nock(API)
      .get(PATH)
      .reply(403, { message: "API rate limit exceeded" }, { "x-ratelimit-remaining": "0", "x-ratelimit-reset": reset });
    nock(API).get(PATH).reply(200, { permission: "write" });
    const { get, warnings } = client();
    expect((await get()).data).toEqual({ permission: "write" });
    expect(warnings).toHaveLength(1);
  });

  it("retries 502 answers and succeeds when GitHub recovers", async () => {
    nock(API).get(PATH).times(2).reply(502, { message: "Bad Gateway" });
    nock(API).get(PATH).reply(200, { permission: "write" });
    const { get } = client();
    expect((await get()).data).toEqual({ permission: "write" });
  });

  it("gives up after the retries with GitHub's status (the caller's backoff takes over)", async () => {
    nock(API).get(PATH).times(4).reply(502, { message: "Bad Gateway" });
    const { get } = client();
    await expect(get()).rejects.toMatchObject({ status: 502 });
  });

  it("does not wait in-process for a Retry-After longer than the bound", async () => {
    nock(API).get(PATH).reply(429, { message: "Too Many Requests" }, { "retry-after": "3600" });
    const { get } = client();
    await expect(get()).rejects.toMatchObject({ status: 429 });
  });

  it("stops retrying a secondary rate limit that persists", async () => {
    nock(API)
      .get(PATH)
      .times(4)
      .reply(403, { message: "You have exceeded a secondary rate limit." }, { "retry-after": "1" });
    const { get, warnings } = client();
    await expect(get()).rejects.toMatchObject({ status: 403 });
    expect(warnings.map((w) => w.retry)).toEqual([true, true, true, false]);
  });

  it("reads Retry-After as seconds or as an HTTP date", () => {
    expect(retryAfterSeconds("12")).toBe(12);
    expect(retryAfterSeconds(new Date(Date.now() + 30_000).toUTCString())).toBeGreaterThanOrEqual(28);
    expect(retryAfterSeconds("soon")).toBeUndefined();
  });
});
