// `autogen-bot dashboard --demo`: the dashboard rendered from the bundled sample job history,
// no store; empty charts say "no data yet"; figures carry thousands separators.
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DEMO_HISTORY_FILE, demoJobHistory } from "../../src/dashboard/demo-job-history.ts";
import { renderOverview } from "../../src/dashboard/render-pages.ts";
import { barChart } from "../../src/dashboard/svg-chart.ts";
import type { JobSummary } from "../../src/ops/job-history.ts";
import { runCli } from "../support/run-cli.ts";

type FixtureCost = { promptTokens: number; completionTokens: number; llmCalls: number };
type FixtureJob = { id: number; owner: string; repo: string; state: string; outcome?: string; cost?: FixtureCost };
const fixture = JSON.parse(readFileSync(DEMO_HISTORY_FILE, "utf8")) as { now: number; jobs: FixtureJob[] };
const links = { overview: "index.html", job: (id: number) => `job-${id}.html` };
const ctx = { links, now: fixture.now, webUrl: "https://github.com" };

describe("dashboard --demo", () => {
  it("writes the overview and one page per sample job, with no store anywhere", async () => {
    const out = await mkdtemp(join(tmpdir(), "autogen-demo-"));
    const env = { AUTOGEN_DB_PATH: join(out, "no-such.db") };
    const { code, stdout, stderr } = await runCli(["dashboard", "--demo", "--out", out], { env });
    expect(stderr).toBe("");
    expect(code).toBe(0);
    const wrote = `wrote ${fixture.jobs.length + 1} page(s) of the sample job history to ${out}`;
    expect(stdout).toBe(`${wrote}\nopen file://${out}/index.html\n`);
    const pages = readdirSync(out).sort();
    expect(pages).toHaveLength(fixture.jobs.length + 1);
    expect(pages).toContain("index.html");
    const index = readFileSync(join(out, "index.html"), "utf8");
    // Every sample job has its page; the newest are linked from the overview.
    for (const job of fixture.jobs) expect(pages).toContain(`job-${job.id}.html`);
    const newest = Math.max(...fixture.jobs.map((j) => j.id));
    expect(index).toContain(`href="job-${newest}.html"`);
    const sample = fixture.jobs.find((j) => j.outcome === "fixed");
    expect(readFileSync(join(out, `job-${sample?.id}.html`), "utf8")).toContain(`<h1>Job #${sample?.id}: `);
    // The sample has data in every chart.
    expect(index).not.toContain("no data yet");
  });

  it("per-repository token totals are the fixture's sums, written with thousands separators", async () => {
    const out = await mkdtemp(join(tmpdir(), "autogen-demo-"));
    await runCli(["dashboard", "--demo", "--out", out]);
    const index = readFileSync(join(out, "index.html"), "utf8");
    const perRepo = index.split('<table class="per-repository">')[1]?.split("</table>")[0] ?? "";
    const repos = [...new Set(fixture.jobs.map((j) => `${j.owner}/${j.repo}`))];
    let separated = 0;
    for (const repo of repos) {
      const tokens = fixture.jobs
        .filter((j) => `${j.owner}/${j.repo}` === repo)
        .reduce((sum, j) => sum + (j.cost ? j.cost.promptTokens + j.cost.completionTokens : 0), 0);
      const row = perRepo.split("<tr>").find((r) => r.startsWith(`<td>${repo}</td>`)) ?? "";
      const written = tokens.toString().replace(/\B(?=(\d{3})+(?!\d))/g, ",");
      expect(row).toContain(`<td class="n">${written}</td>`);
      if (tokens >= 1000) separated += 1;
    }
    expect(separated).toBeGreaterThan(0);
    expect(perRepo).not.toMatch(/<td class="n">\d{4,}/);
  });

  it("--demo with --db is a usage error", async () => {
    const { code, stderr } = await runCli(["dashboard", "--demo", "--db", "x.db"]);
    expect(code).toBe(2);
    expect(stderr).toMatch(/^autogen-bot dashboard: --demo renders the bundled sample history: leave out --db\n/);
  });

  it("without --out or --demo, names both", async () => {
    const { code, stderr } = await runCli(["dashboard"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--out <dir> is required (or --demo to see the dashboard on sample jobs)");
  });

  it("a sample history that is not one is refused with its file named", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-demo-"));
    const file = join(dir, "bad.json");
    await writeFile(file, JSON.stringify({ about: "x", now: 1, jobs: [{ id: "seven" }] }));
    expect(() => demoJobHistory(file)).toThrow(`${file} is not a job history:`);
  });

  it("the history port answers like a store: newest first, since and limit, one job by id", async () => {
    const history = demoJobHistory();
    const all = await history.jobs();
    expect(all).toHaveLength(fixture.jobs.length);
    expect(all.map((j) => j.createdAt)).toEqual([...all.map((j) => j.createdAt)].sort((a, b) => b - a));
    const since = all[4]?.createdAt ?? 0;
    expect(await history.jobs({ since })).toHaveLength(5);
    expect(await history.jobs({ limit: 3 })).toEqual(all.slice(0, 3));
    expect((await history.job(all[0]?.id ?? -1))?.id).toBe(all[0]?.id);
    expect(await history.job(-1)).toBeUndefined();
  });
});

describe("charts and figures", () => {
  it("an empty store's overview says 'no data yet' in each chart, with no axis ticks", () => {
    const text = renderOverview([], ctx).text;
    expect(text.match(/no data yet/g)).toHaveLength(3);
    expect(text).not.toContain('text-anchor="end" font-size="10">0<');
  });

  it("a chart whose columns are all zero says 'no data yet'; one with a figure draws it", () => {
    const series = [{ name: "", color: "#000" }];
    const zeros = barChart({ title: "t", unit: "dollars", series, columns: [{ label: "w1", values: [0] }] });
    expect(zeros.text).toContain("no data yet");
    const drawn = barChart({ title: "t", unit: "jobs", series, columns: [{ label: "w1", values: [12_345] }] }).text;
    expect(drawn).not.toContain("no data yet");
    expect(drawn).toContain("w1: 12,345 jobs");
    expect(drawn).toContain(">20,000</text>");
  });

  it("twelve weekly columns are labelled by month and day (no overlap); the bar's title keeps the year", () => {
    const month = (i: number) => String(i + 1).padStart(2, "0");
    const columns = Array.from({ length: 12 }, (_, i) => ({ label: `2026-${month(i)}-07`, values: [i + 1] }));
    const text = barChart({ title: "t", unit: "jobs", series: [{ name: "", color: "#000" }], columns }).text;
    expect(text).toContain('font-size="10">12-07</text>');
    expect(text).not.toContain(">2026-12-07</text>");
    expect(text).toContain("<title>2026-12-07: 12 jobs</title>");
    const series = [{ name: "", color: "#000" }];
    const wide = barChart({ title: "t", unit: "jobs", series, columns: columns.slice(0, 3) }).text;
    expect(wide).toContain(">2026-01-07</text>");
  });

  it("the per-week table separates thousands in counts and minutes", () => {
    const job = (id: number): JobSummary => ({
      id,
      deliveryId: `d${id}`,
      installationId: 1,
      owner: "o",
      repo: "r",
      number: id,
      kind: "fix",
      state: "done",
      requester: "u",
      title: "t",
      createdAt: fixture.now - 3_600_000,
      updatedAt: fixture.now,
      stage: "report",
      outcome: "fixed",
      stopReason: "solved",
      strategy: "lpw",
      verifier: "bwrap",
      pull: undefined,
      merged: false,
      error: null,
      attempts: 1,
      cost: {
        llmCalls: 1_500,
        promptTokens: 1_000_000,
        completionTokens: 234_567,
        dollars: 1_234.5,
        llmSeconds: 1,
        testRuns: 1,
        testSeconds: 90_000,
        wallSeconds: 1,
      },
    });
    const text = renderOverview([job(1)], ctx).text;
    expect(text).toContain('<td class="n">1,500</td>');
    expect(text).toContain('<td class="n">1,234,567</td>');
    expect(text).toContain("$1,234.50");
    expect(text).toContain('<td class="n">1,500.0</td>');
  });
});
