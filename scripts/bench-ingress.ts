// `npm run bench:ingress -- [deliveries] [senders]`: the real `autogen serve` server on
// loopback (SQLite store, no workers) against a GitHub stand-in that answers every call
// after 150 ms. Prints: acknowledgement p50/p99/max for signed `issues.labeled`
// deliveries from concurrent senders (targets p99 < 250 ms, max < 2 s), the process's
// peak RSS, jobs created against unique deliveries once the inbox drained, and how
// bodies of 1/25/50 MB, signed and unsigned, were answered and what they cost in memory;
// then kill -9 trials on SQLite (BENCH_TRIALS, default 10), then two instances on one
// Postgres (scripts/bench-ingress-postgres.ts; BENCH_PG_TRIALS default 4, 0 skips it;
// BENCH_PG_DELIVERIES default 300 per trial; BENCH_PG_CONCURRENCY jobs per instance,
// default 8; BENCH_PG_CLAIM_JOBS, default 1000, for the store's claim path alone).
// Ends with one markdown table of every target; exits 1 when a correctness target
// (lost, duplicated, double-claimed) is missed.
import { createHmac, generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import { monitorEventLoopDelay } from "node:perf_hooks";
import { Readable } from "node:stream";
import { loadServerConfig } from "../src/config/env-config.ts";
import { DEFAULT_INGRESS_LIMITS } from "../src/server/ingress-limits.ts";
import { postgresPhase, type PgPhaseResult } from "./bench-ingress-postgres.ts";
import { startServer } from "../src/server/start-server.ts";

const count = Number(process.argv[2] ?? 2000);
const senders = Number(process.argv[3] ?? 50);
const GITHUB_DELAY_MS = 150;
const secret = "bench-ingress-secret";
const loadAtStart = loadavg();
const dir = await mkdtemp(join(tmpdir(), "autogen-bench-ingress-"));

// GitHub stand-in: every answer after 150 ms.
const github = createServer((req, res) => {
  const url = req.url ?? "";
  req.resume();
  req.on("end", () => {
    setTimeout(() => {
      res.setHeader("content-type", "application/json");
      if (url.includes("/access_tokens")) res.writeHead(201).end(JSON.stringify({ token: "ghs_bench", expires_at: new Date(Date.now() + 3_600_000).toISOString() }));
      else if (url.includes("/contents/")) res.writeHead(404).end(JSON.stringify({ message: "Not Found" }));
      else if (url.includes("/permission")) res.writeHead(200).end(JSON.stringify({ permission: "write" }));
      else res.writeHead(201).end("{}");
    }, GITHUB_DELAY_MS);
  });
});
await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
const githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;

const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 }).privateKey.export({ type: "pkcs1", format: "pem" }).toString();
const config = loadServerConfig({ APP_ID: "1", PRIVATE_KEY: privateKey, WEBHOOK_SECRET: secret, HOST: "127.0.0.1", PORT: "0", LOG_LEVEL: "fatal", AUTOGEN_DB_PATH: join(dir, "autogen.db") });
// No workers: the jobs are counted, not run.
const running = await startServer({ ...config, baseUrl: githubUrl, concurrency: 0 });
const hookUrl = new URL(`${running.url}/api/github/webhooks`);

let peakRss = process.memoryUsage().rss;
const sampler = setInterval(() => (peakRss = Math.max(peakRss, process.memoryUsage().rss)), 20);

const sign = (body: string | Buffer) => `sha256=${createHmac("sha256", secret).update(body).digest("hex")}`;

function delivery(n: number): { id: string; body: string } {
  const payload = {
    action: "labeled",
    issue: { number: n + 1, title: `Bug ${n}`, body: "steps", user: { login: "reporter" } },
    label: { name: "autogen" },
    repository: { name: "shop", full_name: "octo-org/shop", default_branch: "main", owner: { login: "octo-org" } },
    sender: { login: "maintainer", id: 7, type: "User" },
    installation: { id: 99 },
  };
  return { id: `bench-${n}`, body: JSON.stringify(payload) };
}

async function post(d: { id: string; body: string }): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(hookUrl, {
    method: "POST",
    headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": d.id, "x-hub-signature-256": sign(d.body) },
    body: d.body,
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

const list = Array.from({ length: count }, (_, n) => delivery(n));
const results: Array<{ ms: number; status: number }> = [];
let next = 0;
// The event loop's delay during the burst (server, inbox and senders share this process).
const loopDelay = monitorEventLoopDelay({ resolution: 10 });
loopDelay.enable();
const burstStarted = performance.now();
await Promise.all(
  Array.from({ length: senders }, async () => {
    while (next < list.length) {
      const d = list[next++];
      if (d) results.push(await post(d));
    }
  }),
);
const burstMs = performance.now() - burstStarted;
loopDelay.disable();
const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const statuses = Object.entries(Object.groupBy(results, (r) => String(r.status))).map(([s, rs]) => `${s}: ${rs?.length ?? 0}`).join(", ");
console.log(`deliveries: ${count} from ${senders} senders in ${(burstMs / 1000).toFixed(1)} s, GitHub answering after ${GITHUB_DELAY_MS} ms; statuses ${statuses}`);
console.log(`ack p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms (targets: p99 < 250 ms, max < 2000 ms)`);
const ms = (ns: number) => (ns / 1e6).toFixed(1);
console.log(`event-loop delay during the burst: p50 ${ms(loopDelay.percentile(50))} ms, p99 ${ms(loopDelay.percentile(99))} ms, max ${ms(loopDelay.max)} ms; load average ${loadavg().map((l) => l.toFixed(1)).join(" ")} on ${availableParallelism()} cores`);

const drainStarted = performance.now();
while ((await running.store.inboxDepth()).pending > 0) await new Promise((resolve) => setTimeout(resolve, 100));
await running.inbox.idle();
const jobs = (await Promise.all(list.map((_d, i) => running.store.countJobs("octo-org", "shop", i + 1, "fix")))).reduce((n, c) => n + c, 0);
const failedDeliveries = (await running.store.inboxDepth()).failed;
console.log(`inbox drained in ${((performance.now() - drainStarted) / 1000).toFixed(1)} s after the burst; jobs created ${jobs} for ${count} unique deliveries; failed deliveries ${(await running.store.inboxDepth()).failed}`);

// Redelivering every id: answered as duplicates, no job added.
const again = await Promise.all(list.slice(0, 100).map((d) => post(d)));
const jobsAfter = (await Promise.all(list.map((_d, i) => running.store.countJobs("octo-org", "shop", i + 1, "fix")))).reduce((n, c) => n + c, 0);
console.log(`redelivery of 100 ids: ${again.filter((r) => r.status === 200).length} answered "already received"; jobs ${jobsAfter}`);
const burstPeakRss = peakRss;
console.log(`peak RSS during the burst and drain: ${(peakRss / 1024 / 1024).toFixed(0)} MB`);

/** Streams a body of `size` bytes; resolves with the status and the RSS growth seen meanwhile. */
function bigPost(size: number, signed: boolean): Promise<{ status: number; growthMb: number }> {
  const head = Buffer.from('{"action":"created","pad":"');
  const tail = Buffer.from('"}');
  const chunk = Buffer.alloc(64 * 1024, "a");
  const chunks = function* () {
    yield head;
    let left = size - head.length - tail.length;
    while (left > 0) {
      const n = Math.min(left, chunk.length);
      yield chunk.subarray(0, n);
      left -= n;
    }
    yield tail;
  };
  const hmac = createHmac("sha256", secret);
  for (const c of chunks()) hmac.update(c);
  const signature = signed ? `sha256=${hmac.digest("hex")}` : `sha256=${"0".repeat(64)}`;
  const base = process.memoryUsage().rss;
  let peak = base;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 5);
  return new Promise((resolve) => {
    const req = request({ host: hookUrl.hostname, port: hookUrl.port, path: hookUrl.pathname, method: "POST", headers: { "content-type": "application/json", "content-length": String(size), "x-github-event": "star", "x-github-delivery": `big-${size}-${signed}`, "x-hub-signature-256": signature } });
    let status = 0;
    const done = () => {
      clearInterval(timer);
      resolve({ status, growthMb: (peak - base) / 1024 / 1024 });
    };
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", done);
      res.on("error", done);
    });
    req.on("error", () => (status ? undefined : done()));
    const body = Readable.from(chunks());
    body.on("error", () => undefined);
    body.pipe(req);
  });
}

const bodies: Array<{ mb: number; signed: boolean; status: number; growthMb: number }> = [];
for (const mb of [1, 25, 50]) {
  // "25 MB" is GitHub's cap, 25 * 1024 * 1024 bytes: the limit, accepted.
  const size = mb * 1024 * 1024;
  for (const signed of [true, false]) {
    const r = await bigPost(size, signed);
    bodies.push({ mb, signed, ...r });
    console.log(`body ${mb} MB ${signed ? "signed" : "unsigned"}: ${r.status}, RSS growth ${r.growthMb.toFixed(0)} MB`);
  }
}

clearInterval(sampler);
await running.stop();

// Crash trials: a child server is killed with SIGKILL in the middle of a burst, restarted
// on the same database, and every id is delivered again (as GitHub's redelivery would).
const trials = Number(process.env.BENCH_TRIALS ?? 10);
const perTrial = 200;
let lost = 0;
let duplicated = 0;
async function child(dbPath: string): Promise<{ url: URL; kill: () => Promise<void> }> {
  const proc = spawn(process.execPath, [join(import.meta.dirname, "ingress-child.ts"), dbPath, githubUrl, secret], { stdio: ["ignore", "pipe", "inherit"] });
  const exited = new Promise<void>((resolve) => proc.on("exit", () => resolve()));
  const url = await new Promise<string>((resolve) => {
    let out = "";
    proc.stdout.on("data", (d: Buffer) => {
      out += d.toString();
      if (out.includes("\n")) resolve(out.trim());
    });
  });
  return { url: new URL(`${url}/api/github/webhooks`), kill: async () => void (proc.kill("SIGKILL"), await exited) };
}
async function postTo(url: URL, d: { id: string; body: string }): Promise<number> {
  try {
    const response = await fetch(url, { method: "POST", headers: { "content-type": "application/json", "x-github-event": "issues", "x-github-delivery": d.id, "x-hub-signature-256": sign(d.body) }, body: d.body });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}
for (let trial = 0; trial < trials; trial++) {
  const dbPath = join(dir, `trial-${trial}.db`);
  const ids = Array.from({ length: perTrial }, (_, n) => ({ ...delivery(trial * 10_000 + n), id: `trial-${trial}-${n}` }));
  const first = await child(dbPath);
  let acked = 0;
  let sent = 0;
  const killAt = 50 + Math.floor(Math.random() * 100);
  let killing: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (sent < ids.length && !killing) {
        const d = ids[sent++];
        if (d && (await postTo(first.url, d)) === 202 && ++acked >= killAt) killing ??= first.kill();
      }
    }),
  );
  await (killing ?? first.kill());
  const second = await child(dbPath);
  await Promise.all(ids.map((d) => postTo(second.url, d)));
  const health = new URL("/healthz", second.url);
  while (((await (await fetch(health)).json()) as { inbox: { pending: number } }).inbox.pending > 0) await new Promise((resolve) => setTimeout(resolve, 200));
  await second.kill();
  const db = new DatabaseSync(dbPath);
  const rows = db.prepare("SELECT delivery_id, COUNT(*) AS n FROM jobs GROUP BY delivery_id").all() as Array<{ delivery_id: string; n: number }>;
  db.close();
  const byId = new Map(rows.map((r) => [r.delivery_id, Number(r.n)]));
  const trialLost = ids.filter((d) => !byId.has(d.id)).length;
  const trialDup = rows.filter((r) => Number(r.n) > 1).length;
  lost += trialLost;
  duplicated += trialDup;
  console.log(`crash trial ${trial + 1}: killed after ${acked} acks; ${byId.size} of ${perTrial} deliveries have a job, lost ${trialLost}, duplicated ${trialDup}`);
}
console.log(`crash trials: ${trials} x (SIGKILL mid-burst, restart, redeliver ${perTrial}): lost ${lost}, duplicated ${duplicated}`);

const pgTrials = Number(process.env.BENCH_PG_TRIALS ?? 4);
let pgResult: PgPhaseResult | undefined;
if (pgTrials > 0) {
  pgResult = await postgresPhase({
    githubUrl,
    secret,
    dir,
    trials: pgTrials,
    perTrial: Number(process.env.BENCH_PG_DELIVERIES ?? 300),
    concurrency: Number(process.env.BENCH_PG_CONCURRENCY ?? 8),
    senders: senders,
    log: (line) => console.log(line),
  });
}
await new Promise((resolve) => github.close(resolve));
await rm(dir, { recursive: true, force: true });

// The summary: every target, measured against it.
const limitMb = DEFAULT_INGRESS_LIMITS.maxInFlightBytes / 1024 / 1024;
const maxBodyMb = DEFAULT_INGRESS_LIMITS.maxBodyBytes / 1024 / 1024;
const rows: Array<[string, string, string, boolean | undefined]> = [];
const p99 = pct(99);
const max = sorted.at(-1) ?? 0;
const non202 = results.filter((r) => r.status !== 202).length;
rows.push([`ack p50 (${count} signed deliveries, ${senders} senders, GitHub answering after ${GITHUB_DELAY_MS} ms)`, `${pct(50).toFixed(1)} ms`, "-", undefined]);
rows.push(["ack p99", `${p99.toFixed(1)} ms`, "< 250 ms", p99 < 250]);
rows.push(["ack max", `${max.toFixed(1)} ms`, "< 2000 ms", max < 2000]);
rows.push(["deliveries not answered 202", String(non202), "0", non202 === 0]);
rows.push(["server peak RSS (burst and drain; server, inbox and senders in one process)", `${(burstPeakRss / 1024 / 1024).toFixed(0)} MB`, "-", undefined]);
rows.push(["jobs created = unique deliveries", `${jobs} / ${count} (failed deliveries ${failedDeliveries})`, "equal", jobs === count]);
rows.push(["redelivery of 100 ids: jobs after", `${jobsAfter}`, `${count}`, jobsAfter === count]);
rows.push([`SQLite: ${trials} x kill -9 mid-burst, restart, redeliver ${perTrial}: lost`, String(lost), "0", lost === 0]);
rows.push(["SQLite crash trials: duplicated", String(duplicated), "0", duplicated === 0]);
if (pgResult) {
  const t = pgResult.trials;
  const kills = t.filter((x) => x.killed).length;
  const perTrialPg = t[0]?.deliveries ?? 0;
  const reclaimed = t.reduce((n, x) => n + x.reclaimedAfterLease, 0);
  const claims = t.reduce<Record<string, number>>((acc, x) => {
    for (const [k, v] of Object.entries(x.claims)) acc[k] = (acc[k] ?? 0) + v;
    return acc;
  }, {});
  rows.push([`Postgres, 2 instances: ${t.length} trials x ${perTrialPg} deliveries (split, then all to both), kill -9 + restart of one in ${kills}: duplicated`, String(pgResult.duplicated), "0", pgResult.duplicated === 0]);
  rows.push(["Postgres 2 instances: lost", String(pgResult.lost), "0", pgResult.lost === 0]);
  rows.push(["Postgres 2 instances: jobs claimed more than once, lease not expired", String(pgResult.doubleClaimed), "0", pgResult.doubleClaimed === 0]);
  rows.push(["Postgres 2 instances: jobs never claimed", String(pgResult.unclaimed), "0", pgResult.unclaimed === 0]);
  rows.push(["Postgres 2 instances: jobs by claims (2 = taken over after the killed instance's lease)", `${Object.entries(claims).map(([k, v]) => `${k}: ${v}`).join(", ")} (taken over: ${reclaimed})`, "-", undefined]);
  rows.push([`Postgres 2 instances: throughput of jobs claimed and run to their end by the servers (trials without a kill; ${process.env.BENCH_PG_CONCURRENCY ?? 8} job slots per instance, each job ~6 GitHub calls at ${GITHUB_DELAY_MS} ms)`, `${pgResult.throughput.toFixed(1)} jobs/s`, "-", undefined]);
  const sc = pgResult.storeClaims;
  rows.push([`Postgres store claim path alone: ${sc.jobs} queued jobs claimed and finished at once, 2 stores x 4 loops (claimed twice: ${sc.claimedTwice})`, `${sc.perSecond.toFixed(0)} jobs/s`, "0 claimed twice", sc.claimedTwice === 0 && sc.jobs === Number(process.env.BENCH_PG_CLAIM_JOBS ?? 1000)]);
}
for (const b of bodies) {
  const expected = b.mb * 1024 * 1024 <= DEFAULT_INGRESS_LIMITS.maxBodyBytes ? (b.signed ? "202" : "401") : "413";
  rows.push([`body ${b.mb} MB ${b.signed ? "signed" : "unsigned"}: status; RSS growth`, `${b.status}; ${b.growthMb.toFixed(0)} MB`, `${expected}; < ${limitMb} MB (body cap ${maxBodyMb} MB)`, String(b.status) === expected && b.growthMb < limitMb]);
}
const loadAtEnd = loadavg();
rows.push([`machine load average (1/5/15 min) at start; at end`, `${loadAtStart.map((l) => l.toFixed(2)).join(" ")}; ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`, `${availableParallelism()} cores`, undefined]);
console.log(`\n| measure | result | target | met |\n|---|---|---|---|`);
for (const [name, value, target, ok] of rows) console.log(`| ${name} | ${value} | ${target} | ${ok === undefined ? "" : ok ? "yes" : "**no**"} |`);
const correctness = lost + duplicated + (pgResult ? pgResult.lost + pgResult.duplicated + pgResult.doubleClaimed + pgResult.unclaimed + pgResult.storeClaims.claimedTwice : 0) + (jobs === count ? 0 : 1) + (jobsAfter === count ? 0 : 1);
if (correctness > 0) {
  console.error("a correctness target was missed (lost, duplicated or double-claimed jobs)");
  process.exitCode = 1;
}
