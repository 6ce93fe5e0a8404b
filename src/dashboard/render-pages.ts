// The dashboard's pages as server-rendered HTML: the overview (jobs now and recent,
// charts, totals per repository and per week) and one job's page (stages, attempts,
// evidence, cost, links to GitHub). No script: the tables and charts are all there is.
import type { TestEvidence } from "../engine/task.ts";
import type { JobDetail, JobSummary } from "../ops/job-history.ts";
import { html, type Html } from "./html.ts";
import { byRepository, byWeek, median, type Totals } from "./job-totals.ts";
import { barChart } from "./svg-chart.ts";

export type PageLinks = { overview: string; job: (id: number) => string; signOut?: string | undefined };
export type PageContext = { links: PageLinks; now: number; webUrl: string; viewer?: string | undefined };

const STYLE = `body{font:14px/1.4 system-ui,sans-serif;margin:0;color:#1f2328;background:#f6f8fa}
header{background:#24292f;color:#fff;padding:10px 20px;display:flex;gap:16px;align-items:center}header a{color:#fff}
main{padding:16px 20px;max-width:1200px}h2{margin-top:28px;font-size:17px}table{border-collapse:collapse;background:#fff;width:100%;margin:8px 0}
th,td{border:1px solid #d0d7de;padding:4px 8px;text-align:left;vertical-align:top}th{background:#eaeef2}td.n{text-align:right}
.charts{display:flex;flex-wrap:wrap;gap:12px}.chart{background:#fff;border:1px solid #d0d7de;margin:0;padding:6px}
.state-done{color:#1a7f37}.state-failed{color:#cf222e}.state-cancelled{color:#6e7781}.state-running{color:#9a6700}.muted{color:#6e7781}
dl{display:grid;grid-template-columns:max-content auto;gap:4px 16px;background:#fff;padding:10px;border:1px solid #d0d7de}dt{font-weight:600}`;

export function layout(title: string, body: Html, ctx: PageContext): Html {
  return html`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>${title} · autogen-bot</title><style>${STYLE}</style></head>
<body><header><strong>autogen-bot</strong><a href="${ctx.links.overview}">Overview</a>${ctx.viewer ? html`<span class="muted">signed in as ${ctx.viewer}</span>` : ""}${ctx.links.signOut ? html`<form method="post" action="${ctx.links.signOut}"><button type="submit">Sign out</button></form>` : ""}</header>
<main>${body}</main></body></html>
`;
}

export function duration(ms: number): string {
  const s = Math.max(0, Math.round(ms / 1000));
  if (s < 60) return `${s} s`;
  if (s < 3600) return `${Math.floor(s / 60)} min ${s % 60} s`;
  if (s < 86_400) return `${Math.floor(s / 3600)} h ${Math.floor((s % 3600) / 60)} min`;
  return `${Math.floor(s / 86_400)} d ${Math.floor((s % 86_400) / 3600)} h`;
}

/** Whole numbers and decimals with thousands separators (12,345; 1,234.5), whatever the server's locale. */
export const count = (n: number) => n.toLocaleString("en-US", { maximumFractionDigits: 0 });
export const decimal = (n: number, digits = 1) =>
  n.toLocaleString("en-US", { minimumFractionDigits: digits, maximumFractionDigits: digits });
const dollars = (d: number) => `$${decimal(d, d < 10 ? 4 : 2)}`;
const when = (ms: number) => new Date(ms).toISOString().replace("T", " ").slice(0, 16);
export const TRIGGERS: Record<string, string> = { fix: "issue", plan: "plan", ci: "red build" };

function issueUrl(ctx: PageContext, job: JobSummary): string {
  return `${ctx.webUrl}/${encodeURIComponent(job.owner)}/${encodeURIComponent(job.repo)}/${job.kind === "ci" ? "pull" : "issues"}/${job.number}`;
}

function pullUrl(ctx: PageContext, job: JobSummary): string | undefined {
  return job.pull === undefined
    ? undefined
    : `${ctx.webUrl}/${encodeURIComponent(job.owner)}/${encodeURIComponent(job.repo)}/pull/${job.pull}`;
}

function result(job: JobSummary): string {
  if (job.state === "queued" || job.state === "running") return job.state;
  if (job.state !== "done") return job.state;
  return job.outcome === "fixed" ? "fixed" : `not fixed (${job.stopReason ?? "unknown"})`;
}

function jobRows(jobs: JobSummary[], ctx: PageContext, active: boolean): Html {
  if (jobs.length === 0)
    return html`<p class="muted">${active ? "No job is queued or running." : "No finished job yet."}</p>`;
  return html`<table class="jobs"><thead><tr><th>Job</th><th>Repository</th><th>Issue / PR</th><th>Trigger</th><th>${active ? "Stage" : "Result"}</th><th>${active ? "Elapsed" : "Took"}</th><th>Strategy</th><th>Verifier</th>${active ? "" : html`<th>PR</th><th>Cost</th>`}</tr></thead><tbody>
${jobs.map((job) => {
  const pull = pullUrl(ctx, job);
  return html`<tr data-job="${job.id}"><td><a href="${ctx.links.job(job.id)}">#${job.id}</a></td><td>${job.owner}/${job.repo}</td><td><a href="${issueUrl(ctx, job)}">#${job.number}</a> ${job.title}</td><td>${TRIGGERS[job.kind] ?? job.kind}</td>
<td class="state-${job.state}">${active ? `${job.state}${job.stage ? `: ${job.stage}` : ""}` : result(job)}</td><td>${duration((active ? ctx.now : job.updatedAt) - job.createdAt)}</td><td>${job.strategy ?? "—"}</td><td>${job.verifier ?? "—"}</td>${active ? "" : html`<td>${pull ? html`<a href="${pull}">#${job.pull}</a>${job.merged ? " merged" : ""}` : "—"}</td><td class="n">${job.cost ? dollars(job.cost.dollars) : "—"}</td>`}</tr>
`;
})}</tbody></table>`;
}

function reasons(t: Totals): string {
  return (
    Object.entries(t.reasons)
      .sort((a, b) => b[1] - a[1])
      .map(([r, n]) => `${r} ×${n}`)
      .join(", ") || "—"
  );
}

function totalsTable(rows: Totals[], keyName: string, cls: string): Html {
  if (rows.length === 0) return html`<p class="muted">No jobs yet.</p>`;
  return html`<table class="${cls}"><thead><tr><th>${keyName}</th><th>Jobs</th><th>Fixed</th><th>Not fixed</th><th>Failed</th><th>Cancelled</th><th>Why not fixed / gave up</th><th>PRs</th><th>Merged PRs</th><th>LLM calls</th><th>Tokens</th><th>Dollars</th><th>Test minutes</th><th>Actions minutes</th><th>Median time to PR</th></tr></thead><tbody>
${rows.map((t) => {
  const m = median(t.minutesToPr);
  return html`<tr><td>${t.key}</td><td class="n">${count(t.jobs)}</td><td class="n">${count(t.fixed)}</td><td class="n">${count(t.notFixed)}</td><td class="n">${count(t.failed)}</td><td class="n">${count(t.cancelled)}</td><td>${reasons(t)}</td><td class="n">${count(t.pulls)}</td><td class="n">${count(t.merged)}</td><td class="n">${count(t.llmCalls)}</td><td class="n">${count(t.tokens)}</td><td class="n">${dollars(t.dollars)}</td><td class="n">${decimal(t.testMinutes)}</td><td class="n">${decimal(t.actionsMinutes)}</td><td class="n">${m === undefined ? "—" : `${decimal(m)} min`}</td></tr>
`;
})}</tbody></table>`;
}

export function renderOverview(jobs: JobSummary[], ctx: PageContext): Html {
  const active = jobs.filter((j) => j.state === "queued" || j.state === "running").sort((a, b) => a.id - b.id);
  const recent = jobs
    .filter((j) => j.state !== "queued" && j.state !== "running")
    .sort((a, b) => b.id - a.id)
    .slice(0, 50);
  const weeks = byWeek(jobs).slice(-12);
  const charts = html`<div class="charts">
${barChart({
  title: "Outcomes per week",
  unit: "jobs",
  series: [
    { name: "fixed", color: "#2da44e" },
    { name: "not fixed", color: "#bf8700" },
    { name: "failed", color: "#cf222e" },
    { name: "cancelled", color: "#8c959f" },
  ],
  columns: weeks.map((w) => ({ label: w.key, values: [w.fixed, w.notFixed, w.failed, w.cancelled] })),
})}
${barChart({ title: "Cost per fixed issue", unit: "dollars", series: [{ name: "", color: "#0969da" }], columns: weeks.map((w) => ({ label: w.key, values: [w.fixed > 0 ? w.dollars / w.fixed : 0] })) })}
${barChart({ title: "Median time to PR", unit: "minutes", series: [{ name: "", color: "#8250df" }], columns: weeks.map((w) => ({ label: w.key, values: [median(w.minutesToPr) ?? 0] })) })}
</div>`;
  const body = html`<h1>Jobs</h1>
<section id="now"><h2>Now (${active.length})</h2>${jobRows(active, ctx, true)}</section>
<section id="recent"><h2>Recent</h2>${jobRows(recent, ctx, false)}</section>
<section id="charts"><h2>Trends</h2>${charts}</section>
<section id="per-repository"><h2>Per repository</h2>${totalsTable(byRepository(jobs), "Repository", "per-repository")}</section>
<section id="per-week"><h2>Per week</h2>${totalsTable([...weeks].reverse(), "Week of", "per-week")}</section>`;
  return layout("Overview", body, ctx);
}

function evidenceTable(label: string, e: TestEvidence | undefined): Html {
  if (!e) return html``;
  const tests = e.tests.slice(0, 200);
  return html`<h3>${label}: ${count(e.passed)} passed, ${count(e.failed)} failed, ${count(e.skipped)} skipped <span class="muted">(${e.isolation}${e.limit ? `; ${e.limit}` : ""})</span></h3>
<table class="evidence"><thead><tr><th>Test</th><th>Status</th></tr></thead><tbody>${tests.map((t) => html`<tr><td>${t.id}</td><td>${t.status}</td></tr>`)}</tbody></table>${e.tests.length > tests.length ? html`<p class="muted">${e.tests.length - tests.length} more not shown.</p>` : ""}`;
}

export function renderJob(job: JobDetail, ctx: PageContext): Html {
  const pull = pullUrl(ctx, job);
  const cost = job.cost;
  const body = html`<h1>Job #${job.id}: ${job.title}</h1>
<dl class="summary">
<dt>Repository</dt><dd>${job.owner}/${job.repo}</dd>
<dt>${job.kind === "ci" ? "Pull request" : "Issue"}</dt><dd><a href="${issueUrl(ctx, job)}">#${job.number}</a></dd>
<dt>Trigger</dt><dd>${TRIGGERS[job.kind] ?? job.kind}, by ${job.requester}</dd>
<dt>State</dt><dd class="state-${job.state}">${result(job)}${job.stage && (job.state === "running" || job.state === "queued") ? ` (stage: ${job.stage})` : ""}</dd>
${job.message ? html`<dt>Message</dt><dd>${job.message}</dd>` : ""}
${job.error ? html`<dt>Error</dt><dd>${job.error.split("\n")[0]}</dd>` : ""}
<dt>Created</dt><dd>${when(job.createdAt)} UTC</dd>
<dt>${job.state === "queued" || job.state === "running" ? "Elapsed" : "Took"}</dt><dd>${duration((job.state === "queued" || job.state === "running" ? ctx.now : job.updatedAt) - job.createdAt)}</dd>
<dt>Strategy</dt><dd>${job.strategy ?? "—"}</dd><dt>Verifier</dt><dd>${job.verifier ?? "—"}</dd>
<dt>Pull request</dt><dd>${pull ? html`<a href="${pull}">#${job.pull}</a>${job.merged ? " (merged)" : ""}` : "—"}</dd>
<dt>Check run</dt><dd>${job.checkRunUrl ? html`<a class="check-run" href="${job.checkRunUrl}">${job.checkRunUrl}</a>` : "—"}</dd>
<dt>Delivery</dt><dd>${job.deliveryId}</dd>
</dl>
<h2>Cost</h2>
${cost ? html`<table class="cost"><tbody><tr><th>LLM calls</th><td class="n">${count(cost.llmCalls)}</td></tr><tr><th>Tokens (prompt / completion)</th><td class="n">${count(cost.promptTokens)} / ${count(cost.completionTokens)}</td></tr><tr><th>Dollars</th><td class="n">${dollars(cost.dollars)}</td></tr><tr><th>Model seconds</th><td class="n">${decimal(cost.llmSeconds)}</td></tr><tr><th>Test runs</th><td class="n">${count(cost.testRuns)}</td></tr><tr><th>Test seconds</th><td class="n">${decimal(cost.testSeconds)}</td></tr><tr><th>Engine seconds</th><td class="n">${decimal(cost.wallSeconds)}</td></tr></tbody></table>` : html`<p class="muted">Not known yet: the engine has not finished.</p>`}
${job.planSteps.length ? html`<h2>Plan</h2><ol>${job.planSteps.map((s) => html`<li>${s}</li>`)}</ol>` : ""}
<h2>Attempts (${job.attemptList.length})</h2>
${job.attemptList.length ? html`<table class="attempts"><thead><tr><th>#</th><th>Result</th><th>Passed</th><th>Failed</th><th>Where</th><th>What</th></tr></thead><tbody>${job.attemptList.map((a) => html`<tr><td>${a.index}</td><td>${a.result}</td><td class="n">${a.passed}</td><td class="n">${a.failed}</td><td>${a.file ? `${a.file}${a.line ? `:${a.line}` : ""}` : "—"}</td><td>${a.description}${a.limit ? ` (${a.limit})` : ""}</td></tr>`)}</tbody></table>` : html`<p class="muted">None.</p>`}
${job.changedFiles.length ? html`<h2>Changed files</h2><ul>${job.changedFiles.map((f) => html`<li>${f}</li>`)}</ul>` : ""}
<h2>Evidence</h2>
${job.evidence.before || job.evidence.after ? html`${evidenceTable("Before", job.evidence.before)}${evidenceTable("After", job.evidence.after)}${evidenceTable("Regression gate after", job.evidence.regressionAfter)}` : html`<p class="muted">No test evidence recorded.</p>`}`;
  return layout(`Job #${job.id}`, body, ctx);
}

export function renderMessage(title: string, message: string | Html, ctx: PageContext, status = ""): Html {
  return layout(title, html`<h1>${title}</h1><p class="message${status ? ` ${status}` : ""}">${message}</p>`, ctx);
}
