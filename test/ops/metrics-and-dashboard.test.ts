// `autogen serve` after real jobs: GET /metrics read by a strict Prometheus text-format
// reader and checked against what the seed did (deliveries, jobs, outcomes, GitHub calls,
// test runs), and the token-guarded dashboard over plain HTTP (no script needed).
import { readFile, readdir, mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { DatabaseSync } from "node:sqlite";
import { join } from "node:path";
import { Writable } from "node:stream";
import nock from "nock";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { OpsConfig } from "../../src/config/ops-config.ts";
import { SqliteJobHistory } from "../../src/ops/sqlite-job-history.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { networkGuard } from "../support/network-guard.ts";
import { runCli } from "../support/run-cli.ts";
import { histogram, parseMetrics, total, value } from "../support/prometheus-text.ts";
import {
  CHECK_RUN_URL,
  GAVE_UP,
  HOSTILE_TITLE,
  ISSUE,
  PROMPT_CANARY,
  SECRET_CANARY,
  seededServer,
  type SeededServer,
} from "../support/seeded-server.ts";

const TOKEN = "dashboard-token-0123456789";
const OPS: OpsConfig = { metrics: { enabled: true, token: undefined }, dashboard: { mode: "token", token: TOKEN } };
const network = networkGuard();
let seeded: SeededServer;
let githubErrors: string[] = [];
let githubRequests = 0;
/** Every line the server logged while seeding (JSON, at debug level). */
const logLines: Array<Record<string, unknown>> = [];
const logStream = new Writable({
  write(chunk: Buffer, _encoding, done) {
    for (const line of chunk.toString("utf8").split("\n"))
      if (line.trim()) logLines.push(JSON.parse(line) as Record<string, unknown>);
    done();
  },
});

beforeAll(async () => {
  network.start();
  seeded = await seededServer(OPS, 0, logStream);
  githubErrors = [...seeded.github.errors];
  githubRequests = seeded.github.requests.length;
}, 240_000);

afterAll(async () => {
  await seeded?.running.stop();
  const { unmatched } = network.stop();
  expect(unmatched, "requests nothing answered").toEqual([]);
  nock.cleanAll();
});

async function jobOf(number: number) {
  const history = new SqliteJobHistory(seeded.dbPath);
  const job = (await history.jobs()).find((j) => j.number === number);
  await history.close();
  if (!job) throw new Error(`no seeded job for #${number}`);
  return job;
}

const get = (path: string, headers: Record<string, string> = {}) =>
  fetch(`${seeded.running.url}${path}`, { headers, redirect: "manual" });

describe("the seed", () => {
  it("ran what it says, against GitHub's REST description", () => {
    expect(githubErrors).toEqual([]);
    expect(seeded.answers).toEqual({ "seed-1": 200, "seed-2": 202, "seed-3": 202, "seed-bad": 401, "seed-merge": 202 });
    expect(seeded.state.pulls).toHaveLength(1);
  });
});

describe("the structured log", () => {
  it("carries the job id and the delivery id on every line of a job", async () => {
    const history = new SqliteJobHistory(seeded.dbPath);
    const jobs = (await history.jobs()).filter((j) => j.deliveryId === "seed-1" || j.deliveryId === "seed-2");
    await history.close();
    expect(jobs.map((j) => j.number).sort()).toEqual([42, 43]);
    for (const job of jobs) {
      const lines = logLines.filter((l) => l.jobId === job.id);
      // The job's lines (its GitHub calls among them, logged by the GitHub client) name its delivery.
      expect(
        lines.filter((l) => String(l.msg).startsWith("GitHub request:")).length,
        `GitHub calls of job ${job.id}`,
      ).toBeGreaterThan(3);
      for (const line of lines) expect(line.deliveryId, String(line.msg)).toBe(job.deliveryId);
      // Each of the job's status-comment edits is a line of that job.
      const edits = logLines.filter((l) =>
        String(l.msg).startsWith(
          `GitHub request: PATCH https://api.github.com/repos/${job.owner}/${job.repo}/issues/comments/`,
        ),
      );
      expect(edits.length).toBeGreaterThan(0);
      for (const edit of edits) expect([edit.jobId, edit.deliveryId]).toEqual([job.id, job.deliveryId]);
    }
    // Everything the seed made the server log was for a delivery, and says which.
    expect(logLines.length).toBeGreaterThan(20);
    expect(logLines.filter((l) => typeof l.deliveryId !== "string").map((l) => l.msg)).toEqual([]);
    // No line names a job without naming the delivery too (a job logging through the app's logger would).
    const orphans = logLines.filter(
      (l) => (l.jobId !== undefined || l.job !== undefined) && typeof l.deliveryId !== "string",
    );
    expect(orphans.map((l) => l.msg)).toEqual([]);
    // The log never holds the canaries either.
    const all = JSON.stringify(logLines);
    expect(all).not.toContain(SECRET_CANARY);
    expect(all).not.toContain("PROMPT-CANARY");
  });
});

describe("GET /metrics", () => {
  it("is valid text format and matches the seeded counts", async () => {
    const response = await get("/metrics");
    expect(response.status).toBe(200);
    expect(response.headers.get("content-type")).toBe("text/plain; version=0.0.4; charset=utf-8");
    const text = await response.text();
    const { families, problems } = parseMetrics(text);
    expect(problems).toEqual([]);

    expect(value(families, "autogen_webhook_deliveries_total", { result: "accepted" })).toBe(4);
    expect(value(families, "autogen_webhook_deliveries_total", { result: "duplicate" })).toBe(1);
    expect(value(families, "autogen_webhook_deliveries_total", { result: "rejected", reason: "bad-signature" })).toBe(
      1,
    );
    expect(value(families, "autogen_inbox_deliveries", { state: "done" })).toBe(4);
    expect(value(families, "autogen_inbox_deliveries", { state: "pending" })).toBe(0);

    expect(value(families, "autogen_jobs", { kind: "fix", state: "done" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "cancelled" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "fix", state: "running" })).toBe(1);
    expect(
      value(families, "autogen_job_outcomes_total", { kind: "fix", outcome: "fixed", stop_reason: "solved" }),
    ).toBe(1);
    expect(value(families, "autogen_job_outcomes_total", { kind: "fix", outcome: "cancelled" })).toBe(1);
    expect(
      value(families, "autogen_job_outcomes_total", { kind: "ci", outcome: "not-fixed", stop_reason: "exhausted" }),
    ).toBe(1);
    expect(value(families, "autogen_job_outcomes_total", { kind: "plan", outcome: "failed" })).toBe(1);
    expect(total(families, "autogen_job_outcomes_total")).toBe(4);
    expect(value(families, "autogen_jobs", { kind: "ci", state: "done" })).toBe(1);
    expect(value(families, "autogen_jobs", { kind: "plan", state: "failed" })).toBe(1);
    expect(value(families, "autogen_queue_depth", { state: "queued" })).toBe(0);
    expect(value(families, "autogen_queue_depth", { state: "running" })).toBe(1);
    expect(value(families, "autogen_queue_oldest_age_seconds")).toBe(0);
    expect(value(families, "autogen_pull_requests_total")).toBe(1);
    expect(value(families, "autogen_pull_requests_merged_total")).toBe(1);

    const history = new SqliteJobHistory(seeded.dbPath);
    const fixed = (await history.jobs()).find((j) => j.number === 42);
    await history.close();
    const cost = fixed?.cost as Outcome["cost"];
    expect(cost.testRuns).toBeGreaterThan(0);
    // The real job's figures plus the red-build job's (2 runs, 120 s on Actions, 2 model calls, $0.25).
    expect(value(families, "autogen_test_runs_total")).toBe(cost.testRuns + 2);
    expect(value(families, "autogen_test_seconds_total")).toBeCloseTo(cost.testSeconds + 120, 6);
    expect(value(families, "autogen_llm_calls_total")).toBe(2);
    expect(value(families, "autogen_llm_tokens_total", { type: "prompt" })).toBe(1000);
    expect(value(families, "autogen_llm_dollars_total")).toBeCloseTo(0.25, 9);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "total" })?.count).toBe(4);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "engine" })?.count).toBe(2);
    expect(histogram(families, "autogen_job_stage_duration_seconds", { stage: "llm" })?.sum).toBeCloseTo(4, 9);
    const tests = histogram(families, "autogen_job_stage_duration_seconds", { stage: "tests" });
    expect(tests?.sum).toBeCloseTo(cost.testSeconds + 120, 6);
    // 120 s falls in the 120 s bucket, not the 60 s one; the real job's seconds are under 60.
    expect(cost.testSeconds).toBeLessThan(60);
    expect([tests?.buckets["60"], tests?.buckets["120"], tests?.buckets["+Inf"]]).toEqual([1, 2, 2]);

    // Every call the fake GitHub answered went through the App's clients, and the last rate limit it reported is kept.
    expect(total(families, "autogen_github_requests_total")).toBe(githubRequests);
    expect(value(families, "autogen_github_requests_total", { method: "POST", status: "201" })).toBeGreaterThan(0);
    const remaining = value(families, "autogen_github_rate_limit_remaining", { resource: "core" }) ?? -1;
    expect(remaining).toBeGreaterThanOrEqual(5000 - githubRequests);
    expect(remaining).toBeLessThanOrEqual(5000 - githubRequests + 2);
    expect(value(families, "autogen_github_rate_limit_limit", { resource: "core" })).toBe(5000);
    expect(text).not.toContain(SECRET_CANARY);
    expect(text).not.toContain("PROMPT-CANARY");
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

  it("links a red-build job's page to its check run, PR and issue; only http(s) links", async () => {
    const ci = await jobOf(7);
    const page = await (await get(`/dashboard/jobs/${ci.id}`, { authorization: `Bearer ${TOKEN}` })).text();
    expect(page).toContain(`<a class="check-run" href="${CHECK_RUN_URL}">`);
    expect(page).toContain('href="https://github.com/octo-org/shop/pull/7"');
    expect(page).toContain("<dt>Verifier</dt><dd>actions</dd>");
    expect(page).toContain("<dt>Strategy</dt><dd>ci-repair</dd>");
    const fixed = await jobOf(42);
    const fixedPage = await (await get(`/dashboard/jobs/${fixed.id}`, { authorization: `Bearer ${TOKEN}` })).text();
    expect(fixedPage).toContain('href="https://github.com/octo-org/shop/issues/42"');
    expect(fixedPage).toMatch(
      new RegExp(`href="https://github.com/octo-org/shop/pull/${fixed.pull}">#${fixed.pull}</a> \\(merged\\)`),
    );
    expect(fixedPage).toContain("<dt>Check run</dt><dd>—</dd>");
  });

  it("totals: merged PRs, Actions minutes, and why jobs gave up", async () => {
    const page = await (await get("/dashboard", { authorization: `Bearer ${TOKEN}` })).text();
    const shop = /<table class="per-repository">.*?<tr><td>octo-org\/shop<\/td>(.*?)<\/tr>/s.exec(page)?.[1] ?? "";
    const cells = [...shop.matchAll(/<td[^>]*>(.*?)<\/td>/gs)].map((m) => m[1]);
    // Jobs, fixed, not fixed, failed, cancelled, why, PRs, merged, LLM calls, tokens, dollars, test minutes, Actions minutes, median time to PR.
    expect(cells.slice(0, 5)).toEqual(["4", "1", "1", "1", "0"]);
    expect(cells[5]).toContain("exhausted ×1");
    expect(cells[5]).toContain(`failed: ${GAVE_UP} ×1`);
    expect(cells.slice(6, 8)).toEqual(["1", "1"]);
    expect(cells[8]).toBe("2");
    expect(cells[12]).toBe("2.0");
    expect(page).toContain("<th>Merged PRs</th>");
    expect(page).toContain("<th>Actions minutes</th>");
    // The recent table names each job's trigger, strategy and verifier.
    const ciRow = new RegExp(`<tr data-job="${(await jobOf(7)).id}">.*?</tr>`, "s").exec(page)?.[0] ?? "";
    expect(ciRow).toContain("<td>red build</td>");
    expect(ciRow).toContain("<td>ci-repair</td><td>actions</td>");
    expect(ciRow).toContain("not fixed (exhausted)");
  });

  it("never shows a secret or a prompt the store holds, on any page", async () => {
    const history = new SqliteJobHistory(seeded.dbPath);
    const ids = (await history.jobs()).map((j) => j.id);
    await history.close();
    const pages = ["/dashboard", ...ids.map((id) => `/dashboard/jobs/${id}`)];
    for (const path of pages) {
      const response = await get(path, { authorization: `Bearer ${TOKEN}` });
      expect(response.status, path).toBe(200);
      const page = await response.text();
      expect(page, path).not.toContain(SECRET_CANARY);
      expect(page, path).not.toContain("PROMPT-CANARY");
      expect(page, path).not.toContain(PROMPT_CANARY.slice(15));
    }
    // The canaries are in the store: the test would see them if a page read them out.
    const db = new DatabaseSync(seeded.dbPath, { readOnly: true });
    const raw = JSON.stringify(db.prepare("SELECT checkpoint, error FROM jobs").all());
    db.close();
    expect(raw).toContain(SECRET_CANARY);
    expect(raw).toContain(PROMPT_CANARY);
  });

  it("signs in through the form and keeps the token in an HttpOnly cookie", async () => {
    const wrong = await fetch(`${seeded.running.url}/dashboard/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: "token=nope",
      redirect: "manual",
    });
    expect(wrong.status).toBe(401);
    const right = await fetch(`${seeded.running.url}/dashboard/auth/token`, {
      method: "POST",
      headers: { "content-type": "application/x-www-form-urlencoded" },
      body: `token=${TOKEN}`,
      redirect: "manual",
    });
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
    expect(stdout).toBe(`wrote 6 page(s) to ${out} (open index.html)\n`);
    const history = new SqliteJobHistory(seeded.dbPath);
    const ids = (await history.jobs()).map((j) => j.id).sort((a, b) => a - b);
    await history.close();
    expect((await readdir(out)).sort()).toEqual(["index.html", ...ids.map((id) => `job-${id}.html`)].sort());
    const index = await readFile(join(out, "index.html"), "utf8");
    expect(index).toContain(ISSUE.title);
    expect(index).not.toContain(HOSTILE_TITLE);
    for (const id of ids) expect(index).toContain(`href="job-${id}.html"`);
    expect(await readFile(join(out, `job-${ids[0]}.html`), "utf8")).toContain('href="index.html"');
    // The same pages as the server's: a finished job's page is the server's, links made relative.
    const main = (page: string) => /<main>(.*)<\/main>/s.exec(page)?.[1] ?? "";
    const relative = (page: string) =>
      page.replace(/\/dashboard\/jobs\/(\d+)/g, "job-$1.html").replace(/"\/dashboard"/g, '"index.html"');
    const reader = new SqliteJobHistory(seeded.dbPath);
    const finished = (await reader.jobs()).filter((j) => j.state !== "running");
    await reader.close();
    expect(finished.length).toBe(4);
    for (const job of finished) {
      const served = await (await get(`/dashboard/jobs/${job.id}`, { authorization: `Bearer ${TOKEN}` })).text();
      const file = await readFile(join(out, `job-${job.id}.html`), "utf8");
      expect(main(file), `job ${job.id}`).toBe(relative(main(served)));
      expect(file).not.toContain(SECRET_CANARY);
      expect(file).not.toContain("PROMPT-CANARY");
    }
    const served = await (await get("/dashboard", { authorization: `Bearer ${TOKEN}` })).text();
    const table = (page: string, cls: string) => new RegExp(`<table class="${cls}">.*?</table>`, "s").exec(page)?.[0];
    for (const cls of ["per-repository", "per-week"]) expect(table(index, cls), cls).toBe(table(served, cls));
    expect(await readFile(join(out, `job-${(await jobOf(7)).id}.html`), "utf8")).toContain(`href="${CHECK_RUN_URL}"`);
    expect(index).not.toContain(SECRET_CANARY);
    expect((index.match(/<svg /g) ?? []).length).toBe(3);
  });

  it("says what to do when there is no store", async () => {
    const { code, stderr } = await runCli([
      "dashboard",
      "--out",
      join(tmpdir(), "x"),
      "--db",
      join(tmpdir(), "no-such-store.db"),
    ]);
    expect(code).toBe(2);
    expect(stderr).toMatch(
      /^autogen-bot dashboard: no job store at .*no-such-store\.db; pass --db or set AUTOGEN_DB_PATH\n$/,
    );
  });
});
