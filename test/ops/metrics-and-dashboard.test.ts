// `autogen serve` after real jobs: GET /metrics read by a strict Prometheus text-format
// reader and checked against what the seed did (deliveries, jobs, outcomes, GitHub calls,
// test runs), and the token-guarded dashboard over plain HTTP (no script needed).
import { readFile, readdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpsConfig } from "../../src/config/ops-config.ts";
import { SqliteJobHistory } from "../../src/ops/sqlite-job-history.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { networkGuard } from "../support/network-guard.ts";
import { runCli } from "../support/run-cli.ts";
import { histogram, parseMetrics, total, value } from "../support/prometheus-text.ts";
import { HOSTILE_TITLE, ISSUE, seededServer, type SeededServer } from "../support/seeded-server.ts";

const TOKEN = "dashboard-token-0123456789";
const OPS: OpsConfig = { metrics: { enabled: true, token: undefined }, dashboard: { mode: "token", token: TOKEN } };
const network = networkGuard();
let seeded: SeededServer;
let githubErrors: string[] = [];
let githubRequests = 0;

beforeAll(async () => {
  network.start();
  seeded = await seededServer(OPS);
  githubErrors = [...seeded.github.errors];
  githubRequests = seeded.github.requests.length;
}, 240_000);

afterAll(async () => {
  await seeded?.running.stop();
  const { unmatched } = network.stop();
  expect(unmatched, "requests nothing answered").toEqual([]);
  nock.cleanAll();
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${seeded.running.url}${path}`, { headers, redirect: "manual" });

describe("the seed", () => {
  it("ran what it says, against GitHub's REST description", () => {
    expect(githubErrors).toEqual([]);
    expect(seeded.answers).toEqual({ "seed-1": 200, "seed-2": 202, "seed-3": 202, "seed-bad": 401 });
    expect(seeded.state.pulls).toHaveLength(1);
  });
});

describe("GET /metrics", () => {
  it("is valid text format and matches the seeded counts", async () => {
    const response = await get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const { families, problems } = parseMetrics(await response.text());
    expect(problems).toEqual([]);

    expect(value(families, "autogen_webhook_deliveries_total", { result: "accepted" })).toBe(3);
    expect(value(families, "autogen_webhook_deliveries_total", { result: "duplicate" })).toBe(1);
    expect(value(families, "autogen_webhook_deliveries_total", { result: "rejected", reason: "bad-signature" })).toBe(1);
    expect(value(families, "autogen_inbox_deliveries", { state: "done" })).toBe(3);
    expect(value(families, "autogen_inbox_deliveries", { state: "pending" })).toBe(0);

    expect(value(families, "autogen_jobs", { kind: "fix", state: "done" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "cancelled" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "running" })).toBe(1);
    expect(value(families, "autogen_job_outcomes_total", { kind: "fix", outcome: "fixed", stop_reason: "solved" })).toBe(1);
    expect(value(families, "autogen_job_outcomes_total", { kind: "fix", outcome: "cancelled" })).toBe(1);
    expect(total(families, "autogen_job_outcomes_total")).toBe(2);
    expect(value(families, "autogen_queue_depth", { state: "queued" })).toBe(0);
    expect(value(families, "autogen_queue_depth", { state: "running" })).toBe(1);
    expect(value(families, "autogen_queue_oldest_age_seconds")).toBe(0);
    expect(value(families, "autogen_pull_requests_total")).toBe(1);

    const history = new SqliteJobHistory(seeded.dbPath);
    const fixed = (await history.jobs()).find((j) => j.number === 42);
    await history.close();
    const cost = fixed?.cost as Outcome["cost"];
    expect(cost.testRuns).toBeGreaterThan(0);
    expect(value(families, "autogen_test_runs_total")).toBe(cost.testRuns);
    expect(value(families, "autogen_test_seconds_total")).toBeCloseTo(cost.testSeconds, 6);
    expect(value(families, "autogen_llm_calls_total")).toBe(0);
    expect(value(families, "autogen_llm_dollars_total")).toBe(0);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "total" })?.count).toBe(2);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "engine" })?.count).toBe(1);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "tests" })?.sum).toBeCloseTo(cost.testSeconds, 6);

    // Every call the fake GitHub answered went through the App's clients, and the last rate limit it reported is kept.
    expect(total(families, "autogen_github_requests_total")).toBe(githubRequests);
    expect(value(families, "autogen_github_requests_total", { method: "POST", status: "201" })).toBeGreaterThan(0);
    const remaining = value(families, "autogen_github_rate_limit_remaining", { resource: "core" }) ?? -1;
    expect(remaining).toBeGreaterThanOrEqual(5000 - githubRequests);
    expect(remaining).toBeLessThanOrEqual(5000 - githubRequests + 2);
    expect(value(families, "autogen_github_rate_limit_limit", { resource: "core" })).toBe(5000);
  });
});

describe("the dashboard behind a token", () => {
  it("refuses a request without the token, and one with another token", async () => {
    const none = await get("/dashboard");
    expect(none.status).toBe(401);
    expect(await none.text()).not.toContain(ISSUE.title);
    const wrong = await get("/dashboard", { authorization: "Bearer not-the-token-at-all" });
    expect(wrong.status).toBe(401);
    expect((await get("/dashboard/jobs/1")).status).toBe(401);
  });

  it("lists the seeded jobs, the hostile title escaped", async () => {
    const response = await get("/dashboard", { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    expect(response.headers.get("content-security-policy")).toContain("default-src 'none'");
    const page = await response.text();
    expect(page).toContain(ISSUE.title);
    expect(page).toContain("Totals are rounded wrongly");
    expect(page).not.toContain(HOSTILE_TITLE);
    expect(page).not.toContain("<script>alert");
    expect(page).not.toContain("<img src=x");
    expect(page).toContain("&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;");
    expect(page).toMatch(/<tr data-job="\d+">.*?<td class="state-done">fixed<\/td>/s);
    expect(page).toContain('href="https://github.com/octo-org/shop/pull/');
    expect(page).toContain("octo-org/other");
    expect((page.match(/<svg /g) ?? []).length).toBe(3);
  });

  it("shows a job's page with attempts, evidence and cost, and 404 for a job that is not there", async () => {
    const history = new SqliteJobHistory(seeded.dbPath);
    const fixed = (await history.jobs()).find((j) => j.number === 42);
    await history.close();
    const response = await get(`/dashboard/jobs/${fixed?.id}`, { authorization: `Bearer ${TOKEN}` });
    expect(response.status).toBe(200);
    const page = await response.text();
    expect(page).toContain(`Job #${fixed?.id}: ${ISSUE.title}`);
    expect(page).toContain("tests/test_cart.py::test_total_applies_discount");
    expect(page).toMatch(/Attempts \(\d+\)/);
    expect(page).toContain("plausible");
    expect(page).toContain("shop/cart.py");
    expect(page).toContain("Test runs");
    expect((await get("/dashboard/jobs/999", { authorization: `Bearer ${TOKEN}` })).status).toBe(404);
  });

  it("signs in through the form and keeps the token in an HttpOnly cookie", async () => {
    const wrong = await fetch(`${seeded.running.url}/dashboard/auth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: "token=nope", redirect: "manual" });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${seeded.running.url}/dashboard/auth/token`, { method: "POST", headers: { "content-type": "application/x-www-form-urlencoded" }, body: `token=${TOKEN}`, redirect: "manual" });
    expect(right.status).toBe(303);
    const cookie = right.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/HttpOnly/);
    expect(cookie).toMatch(/SameSite=Lax/);
    expect(cookie).not.toMatch(/Secure/);
    const page = await get("/dashboard", { cookie: cookie.split(";")[0] ?? "" });
    expect(page.status).toBe(200);
  });
});

describe("autogen dashboard --out", () => {
  it("writes the same pages as static files from the store, linked relatively", async () => {
    const out = join(await mkdtemp(join(tmpdir(), "autogen-static-")), "site");
    const { code, stdout, stderr } = await runCli(["dashboard", "--out", out, "--db", seeded.dbPath]);
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toBe(`wrote 4 page(s) to ${out} (open index.html)\n`);
    const history = new SqliteJobHistory(seeded.dbPath);
    const ids = (await history.jobs()).map((j) => j.id).sort((a, b) => a - b);
    await history.close();
    expect((await readdir(out)).sort()).toEqual(["index.html", ...ids.map((id) => `job-${id}.html`)].sort());
    const index = await readFile(join(out, "index.html"), "utf8");
    expect(index).toContain(ISSUE.title);
    expect(index).not.toContain(HOSTILE_TITLE);
    for (const id of ids) expect(index).toContain(`href="job-${id}.html"`);
    expect(await readFile(join(out, `job-${ids[0]}.html`), "utf8")).toContain('href="index.html"');
  });

  it("says what to do when there is no store", async () => {
    const { code, stderr } = await runCli(["dashboard", "--out", join(tmpdir(), "x"), "--db", join(tmpdir(), "no-such-store.db")]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^autogen dashboard: no job store at .*no-such-store\.db; pass --db or set AUTOGEN_DB_PATH\n$/);
  });
});
