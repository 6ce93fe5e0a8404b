// `npm run bench:ingress -- [deliveries] [senders]`: the real `autogen-bot serve` server on
// loopback (a child process: SQLite store, inbox handlers on, no job workers) against a
// GitHub stand-in that answers every call after 150 ms, fed by senders in another process.
// Prints: acknowledgement p50/p99/max for signed `issues.labeled` deliveries from
// concurrent senders (targets p99 < 250 ms, max < 2 s), the server's peak RSS, jobs
// created against unique deliveries once the inbox drained, and how bodies of 1 MB, the
// body limit, 25 MB and 50 MB, signed and unsigned, alone and 32 at the limit at once,
// were answered and what they cost the server in memory (its peak RSS, /proc);
// then kill -9 trials on SQLite (BENCH_TRIALS, default 10), then two instances on one
// Postgres (scripts/bench-ingress-postgres.ts; BENCH_PG_TRIALS default 4, 0 skips it;
// BENCH_PG_DELIVERIES default 300 per trial; BENCH_PG_CONCURRENCY jobs per instance,
// default 8; BENCH_PG_CLAIM_JOBS, default 1000, for the store's claim path alone).
// Ends with one markdown table of every target; exits 1 when a correctness target
// (lost, duplicated, double-claimed) is missed, or when 32 bodies of the limit at once
// grow the server by more than the in-flight budget plus BODY_SLACK_MB.
// BENCH_ONLY=bodies runs the body-size phase alone (a minute instead of many).
import { createHmac } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer, request } from "node:http";
import type { AddressInfo } from "node:net";
import { availableParallelism, loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { spawn } from "node:child_process";
import { DatabaseSync } from "node:sqlite";
import { Readable } from "node:stream";
import { DEFAULT_INGRESS_LIMITS } from "../src/server/ingress-limits.ts";
import { postgresPhase, type PgPhaseResult } from "./bench-ingress-postgres.ts";
import { spawnServer } from "../test/support/server-child.ts";
import { labeledBody, memoryOf, postDelivery, resetPeak } from "./ingress-support.ts";

const tally = (statuses: number[]) =>
  Object.entries(Object.groupBy(statuses, (st) => String(st)))
    .map(([st, xs]) => (statuses.length === 1 ? st : `${st} x${xs?.length ?? 0}`))
    .join(", ");

const bodiesOnly = process.env.BENCH_ONLY === "bodies";
const count = bodiesOnly ? 0 : Number(process.argv[2] ?? 2000);
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
      if (url.includes("/access_tokens"))
        res
          .writeHead(201)
          .end(JSON.stringify({ token: "ghs_bench", expires_at: new Date(Date.now() + 3_600_000).toISOString() }));
      else if (url.includes("/contents/")) res.writeHead(404).end(JSON.stringify({ message: "Not Found" }));
      else if (url.includes("/permission")) res.writeHead(200).end(JSON.stringify({ permission: "write" }));
      else res.writeHead(201).end("{}");
    }, GITHUB_DELAY_MS);
  });
});
await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
const githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;

// The server in a child process of its own (`autogen-bot serve`'s server, SQLite store, the
// inbox's handlers on, no job workers: the jobs are counted, not run), the senders in
// another (ingress-senders.ts), so neither the senders nor this stand-in share its CPU
// time slice or its memory.
const childScript = join(import.meta.dirname, "../test/support/ingress-child.ts");
const sendersScript = join(import.meta.dirname, "ingress-senders.ts");
const dbPath = join(dir, "autogen.db");
const server = await spawnServer(childScript, [dbPath, secret, githubUrl]);
const health = new URL("/healthz", server.url);

type SendResult = {
  acks: Array<{ ms: number; status: number; at: number }>;
  burstMs: number;
  loopP99Ms: number;
  loopMaxMs: number;
};
function send(url: URL, n: number, concurrent: number, prefix: string, first = 0): Promise<SendResult> {
  const proc = spawn(
    process.execPath,
    [sendersScript, url.href, secret, String(n), String(concurrent), prefix, String(first)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  let out = "";
  proc.stdout.on("data", (d: Buffer) => (out += d.toString()));
  return new Promise((resolve, reject) =>
    proc.on("exit", (code) =>
      code === 0 ? resolve(JSON.parse(out) as SendResult) : reject(new Error(`senders exited ${code}`)),
    ),
  );
}
async function inboxPending(): Promise<number> {
  return ((await (await fetch(health)).json()) as { inbox: { pending: number } }).inbox.pending;
}
async function drained(): Promise<void> {
  while ((await inboxPending()) > 0) await new Promise((resolve) => setTimeout(resolve, 100));
}
function jobCounts(path: string): { jobs: number; deliveries: number; duplicated: number; ids: Set<string> } {
  const db = new DatabaseSync(path, { readOnly: true });
  try {
    const rows = db.prepare("SELECT delivery_id, COUNT(*) AS n FROM jobs GROUP BY delivery_id").all() as Array<{
      delivery_id: string;
      n: number;
    }>;
    return {
      jobs: rows.reduce((t, r) => t + Number(r.n), 0),
      deliveries: rows.length,
      duplicated: rows.filter((r) => Number(r.n) > 1).length,
      ids: new Set(rows.map((r) => r.delivery_id)),
    };
  } finally {
    db.close();
  }
}

resetPeak(server.pid);
const burst: SendResult = bodiesOnly
  ? { acks: [], burstMs: 0, loopP99Ms: 0, loopMaxMs: 0 }
  : await send(server.url, count, senders, "bench");
const results = burst.acks;
const sorted = results.map((r) => r.ms).sort((a, b) => a - b);
const pct = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
const statuses = Object.entries(Object.groupBy(results, (r) => String(r.status)))
  .map(([s, rs]) => `${s}: ${rs?.length ?? 0}`)
  .join(", ");
console.log(
  `deliveries: ${count} from ${senders} senders in ${(burst.burstMs / 1000).toFixed(1)} s, GitHub answering after ${GITHUB_DELAY_MS} ms; statuses ${statuses}`,
);
console.log(
  `ack p50 ${pct(50).toFixed(1)} ms, p99 ${pct(99).toFixed(1)} ms, max ${(sorted.at(-1) ?? 0).toFixed(1)} ms (targets: p99 < 250 ms, max < 2000 ms)`,
);
{
  const slow = [...results]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 20)
    .map((r) => `${r.ms.toFixed(0)}@${r.at.toFixed(0)}`);
  console.log(`slowest acks (ms@start): ${slow.join(" ")}`);
}
console.log(
  `senders' event-loop delay: p99 ${burst.loopP99Ms.toFixed(1)} ms, max ${burst.loopMaxMs.toFixed(1)} ms; load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(" ")} on ${availableParallelism()} cores`,
);

const drainStarted = performance.now();
await drained();
const created = jobCounts(dbPath);
const jobs = created.jobs;
const failedDeliveries = ((await (await fetch(health)).json()) as { inbox: { failed: number } }).inbox.failed;
console.log(
  `inbox drained in ${((performance.now() - drainStarted) / 1000).toFixed(1)} s after the burst; jobs created ${jobs} for ${count} unique deliveries; failed deliveries ${failedDeliveries}`,
);

// Redelivering ids already received: answered as duplicates, no job added.
const again: SendResult = bodiesOnly
  ? { acks: [], burstMs: 0, loopP99Ms: 0, loopMaxMs: 0 }
  : await send(server.url, 100, senders, "bench");
await drained();
const jobsAfter = jobCounts(dbPath).jobs;
console.log(
  `redelivery of 100 ids: ${again.acks.filter((r) => r.status === 200).length} answered "already received"; jobs ${jobsAfter}`,
);
const burstPeakRss = memoryOf(server.pid).peak;
console.log(`server peak RSS during the burst and drain: ${(burstPeakRss / 1024 / 1024).toFixed(0)} MB`);

const bodyPrefix = JSON.stringify({
  action: "labeled",
  label: { name: "autogen" },
  repository: { name: "shop", full_name: "octo-org/shop", default_branch: "main", owner: { login: "octo-org" } },
  sender: { login: "maintainer", id: 7, type: "User" },
  installation: { id: 99 },
}).slice(0, -1);
let bigId = 0;
/** Streams an `issues.labeled` body of `size` bytes (the issue's text is the padding); resolves with the status. */
function bigPost(size: number, signed: boolean): Promise<number> {
  const n = 900_000 + bigId++;
  const head = Buffer.from(`${bodyPrefix},"issue":{"number":${n},"title":"big","user":{"login":"reporter"},"body":"`);
  const tail = Buffer.from('"}}');
  const chunk = Buffer.alloc(64 * 1024, "a");
  const chunks = function* () {
    yield head;
    let left = size - head.length - tail.length;
    while (left > 0) {
      const k = Math.min(left, chunk.length);
      yield chunk.subarray(0, k);
      left -= k;
    }
    yield tail;
  };
  const hmac = createHmac("sha256", secret);
  for (const c of chunks()) hmac.update(c);
  const sig = signed ? `sha256=${hmac.digest("hex")}` : `sha256=${"0".repeat(64)}`;
  return new Promise((resolve) => {
    const req = request({
      host: server.url.hostname,
      port: server.url.port,
      path: server.url.pathname,
      method: "POST",
      headers: {
        "content-type": "application/json",
        "content-length": String(size),
        "x-github-event": "issues",
        "x-github-delivery": `big-${n}`,
        "x-hub-signature-256": sig,
      },
    });
    let status = 0;
    req.on("response", (res) => {
      status = res.statusCode ?? 0;
      res.resume();
      res.on("end", () => resolve(status));
      res.on("error", () => resolve(status));
    });
    req.on("error", () => (status ? undefined : resolve(0)));
    const body = Readable.from(chunks());
    body.on("error", () => undefined);
    body.pipe(req);
  });
}
/** The server's RSS growth over `work` and the handling of what it stored (the inbox drained). */
async function growthOver(work: () => Promise<number[]>): Promise<{ statuses: number[]; growthMb: number }> {
  await drained();
  resetPeak(server.pid);
  const base = memoryOf(server.pid).rss;
  const statuses = await work();
  await drained();
  await new Promise((resolve) => setTimeout(resolve, 200));
  return { statuses, growthMb: (memoryOf(server.pid).peak - base) / 1024 / 1024 };
}

const capBytes = DEFAULT_INGRESS_LIMITS.maxBodyBytes;
const limitMb = DEFAULT_INGRESS_LIMITS.maxInFlightBytes / 1024 / 1024;
/**
 * What the server may grow by beyond the in-flight budget while it takes bodies of the
 * limit and hands the accepted ones to its inbox: one body parsed by a handler at a time
 * (a 4 MiB JSON text is a few times that as objects) and the heap the garbage collector
 * has not yet given back.
 */
const BODY_SLACK_MB = 64;
const bodies: Array<{
  label: string;
  bytes: number;
  signed: boolean;
  parallel: number;
  statuses: number[];
  growthMb: number;
}> = [];
const sizes: Array<[string, number]> = [
  ["1 MB", 1024 * 1024],
  [`${(capBytes / 1024 / 1024).toFixed(0)} MiB (the limit)`, capBytes],
  ["25 MB", 25 * 1024 * 1024],
  ["50 MB", 50 * 1024 * 1024],
];
for (const [label, bytes] of sizes) {
  for (const signed of [true, false]) {
    const r = await growthOver(async () => [await bigPost(bytes, signed)]);
    bodies.push({ label, bytes, signed, parallel: 1, ...r });
    console.log(
      `body ${label} ${signed ? "signed" : "unsigned"}: ${r.statuses.join(",")}, server RSS growth ${r.growthMb.toFixed(0)} MB`,
    );
  }
}
// Many bodies at the limit at once: the in-flight cap answers the excess 503 (Retry-After).
const parallel = 32;
for (const signed of [true, false]) {
  const r = await growthOver(() => Promise.all(Array.from({ length: parallel }, () => bigPost(capBytes, signed))));
  bodies.push({
    label: `${parallel} x ${(capBytes / 1024 / 1024).toFixed(0)} MiB at once`,
    bytes: capBytes,
    signed,
    parallel,
    ...r,
  });
  console.log(
    `${parallel} bodies of ${capBytes} bytes at once, ${signed ? "signed" : "unsigned"}: ${tally(r.statuses)}, server RSS growth ${r.growthMb.toFixed(0)} MB (judged: at most ${limitMb + BODY_SLACK_MB} MB)`,
  );
}
await server.stop();

// Crash trials: a child server is killed with SIGKILL in the middle of a burst, restarted
// on the same database, and every id is delivered again (as GitHub's redelivery would).
const trials = bodiesOnly ? 0 : Number(process.env.BENCH_TRIALS ?? 10);
const perTrial = 200;
let lost = 0;
let duplicated = 0;
for (let trial = 0; trial < trials; trial++) {
  const trialDb = join(dir, `trial-${trial}.db`);
  const ids = Array.from({ length: perTrial }, (_, n) => ({
    id: `trial-${trial}-${n}`,
    body: labeledBody(trial * 10_000 + n),
  }));
  const first = await spawnServer(childScript, [trialDb, secret, githubUrl]);
  let acked = 0;
  let sent = 0;
  const killAt = 50 + Math.floor(Math.random() * 100);
  let killing: Promise<void> | undefined;
  await Promise.all(
    Array.from({ length: 20 }, async () => {
      while (sent < ids.length && !killing) {
        const d = ids[sent++];
        if (d && (await postDelivery(first.url, secret, d.id, d.body)) === 202 && ++acked >= killAt)
          killing ??= first.kill();
      }
    }),
  );
  await (killing ?? first.kill());
  const second = await spawnServer(childScript, [trialDb, secret, githubUrl]);
  await Promise.all(ids.map((d) => postDelivery(second.url, secret, d.id, d.body)));
  const secondHealth = new URL("/healthz", second.url);
  while (((await (await fetch(secondHealth)).json()) as { inbox: { pending: number } }).inbox.pending > 0)
    await new Promise((resolve) => setTimeout(resolve, 200));
  await second.kill();
  const counted = jobCounts(trialDb);
  const trialLost = ids.filter((d) => !counted.ids.has(d.id)).length;
  lost += trialLost;
  duplicated += counted.duplicated;
  console.log(
    `crash trial ${trial + 1}: killed after ${acked} acks; ${counted.deliveries} of ${perTrial} deliveries have a job, lost ${trialLost}, duplicated ${counted.duplicated}`,
  );
}
console.log(
  `crash trials: ${trials} x (SIGKILL mid-burst, restart, redeliver ${perTrial}): lost ${lost}, duplicated ${duplicated}`,
);

const pgTrials = bodiesOnly ? 0 : Number(process.env.BENCH_PG_TRIALS ?? 4);
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
const rows: Array<[string, string, string, boolean | undefined]> = [];
let bodiesOverBudget = 0;
const p99 = pct(99);
const max = sorted.at(-1) ?? 0;
const non202 = results.filter((r) => r.status !== 202).length;
if (!bodiesOnly) {
  rows.push([
    `ack p50 (${count} signed deliveries, ${senders} senders, GitHub answering after ${GITHUB_DELAY_MS} ms)`,
    `${pct(50).toFixed(1)} ms`,
    "-",
    undefined,
  ]);
  rows.push(["ack p99", `${p99.toFixed(1)} ms`, "< 250 ms", p99 < 250]);
  rows.push(["ack max", `${max.toFixed(1)} ms`, "< 2000 ms", max < 2000]);
  rows.push(["deliveries not answered 202", String(non202), "0", non202 === 0]);
  rows.push([
    "server peak RSS (its own process: burst, inbox handlers and drain)",
    `${(burstPeakRss / 1024 / 1024).toFixed(0)} MB`,
    "-",
    undefined,
  ]);
  rows.push([
    "jobs created = unique deliveries",
    `${jobs} / ${count} (failed deliveries ${failedDeliveries})`,
    "equal",
    jobs === count,
  ]);
  rows.push(["redelivery of 100 ids: jobs after", `${jobsAfter}`, `${count}`, jobsAfter === count]);
  rows.push([
    `SQLite: ${trials} x kill -9 mid-burst, restart, redeliver ${perTrial}: lost`,
    String(lost),
    "0",
    lost === 0,
  ]);
  rows.push(["SQLite crash trials: duplicated", String(duplicated), "0", duplicated === 0]);
}
if (pgResult) {
  const t = pgResult.trials;
  const kills = t.filter((x) => x.killed).length;
  const perTrialPg = t[0]?.deliveries ?? 0;
  const reclaimed = t.reduce((n, x) => n + x.reclaimedAfterLease, 0);
  const claims = t.reduce<Record<string, number>>((acc, x) => {
    for (const [k, v] of Object.entries(x.claims)) acc[k] = (acc[k] ?? 0) + v;
    return acc;
  }, {});
  rows.push([
    `Postgres, 2 instances: ${t.length} trials x ${perTrialPg} deliveries (split, then all to both), kill -9 + restart of one in ${kills}: duplicated`,
    String(pgResult.duplicated),
    "0",
    pgResult.duplicated === 0,
  ]);
  rows.push(["Postgres 2 instances: lost", String(pgResult.lost), "0", pgResult.lost === 0]);
  rows.push([
    "Postgres 2 instances: jobs claimed more than once, lease not expired",
    String(pgResult.doubleClaimed),
    "0",
    pgResult.doubleClaimed === 0,
  ]);
  rows.push(["Postgres 2 instances: jobs never claimed", String(pgResult.unclaimed), "0", pgResult.unclaimed === 0]);
  rows.push([
    "Postgres 2 instances: jobs by claims (2 = taken over after the killed instance's lease)",
    `${Object.entries(claims)
      .map(([k, v]) => `${k}: ${v}`)
      .join(", ")} (taken over: ${reclaimed})`,
    "-",
    undefined,
  ]);
  rows.push([
    `Postgres 2 instances: throughput of jobs claimed and run to their end by the servers (trials without a kill; ${process.env.BENCH_PG_CONCURRENCY ?? 8} job slots per instance, each job ~6 GitHub calls at ${GITHUB_DELAY_MS} ms)`,
    `${pgResult.throughput.toFixed(1)} jobs/s`,
    "-",
    undefined,
  ]);
  const sc = pgResult.storeClaims;
  rows.push([
    `Postgres store claim path alone: ${sc.jobs} queued jobs claimed and finished at once, 2 stores x 4 loops (claimed twice: ${sc.claimedTwice})`,
    `${sc.perSecond.toFixed(0)} jobs/s`,
    "0 claimed twice",
    sc.claimedTwice === 0 && sc.jobs === Number(process.env.BENCH_PG_CLAIM_JOBS ?? 1000),
  ]);
}
for (const b of bodies) {
  const expected = b.bytes <= capBytes ? (b.signed ? "202" : "401") : "413";
  const ok =
    b.parallel === 1
      ? b.statuses.every((st) => String(st) === expected)
      : b.statuses.every((st) => String(st) === expected || st === 503);
  if (b.parallel === 1)
    rows.push([
      `body ${b.label} ${b.signed ? "signed" : "unsigned"}: status; server RSS growth`,
      `${tally(b.statuses)}; ${b.growthMb.toFixed(0)} MB`,
      `${expected}; < ${limitMb} MB (in-flight cap; body limit ${(capBytes / 1024 / 1024).toFixed(0)} MiB)`,
      ok && b.growthMb < limitMb,
    ]);
  // Judged by memory: the budget covers every body and its copies until the store has them.
  else {
    const bound = limitMb + BODY_SLACK_MB;
    rows.push([
      `body ${b.label} ${b.signed ? "signed" : "unsigned"}: statuses; server RSS growth`,
      `${tally(b.statuses)}; ${b.growthMb.toFixed(0)} MB`,
      `${expected} or 503; <= ${bound} MB (in-flight budget ${limitMb} MB + ${BODY_SLACK_MB} MB)`,
      ok && b.growthMb <= bound,
    ]);
    if (b.growthMb > bound) bodiesOverBudget++;
  }
}
const loadAtEnd = loadavg();
rows.push([
  `machine load average (1/5/15 min) at start; at end`,
  `${loadAtStart.map((l) => l.toFixed(2)).join(" ")}; ${loadAtEnd.map((l) => l.toFixed(2)).join(" ")}`,
  `${availableParallelism()} cores`,
  undefined,
]);
console.log(`\n| measure | result | target | met |\n|---|---|---|---|`);
for (const [name, value, target, ok] of rows)
  console.log(`| ${name} | ${value} | ${target} | ${ok === undefined ? "" : ok ? "yes" : "**no**"} |`);
const correctness =
  lost +
  duplicated +
  (pgResult
    ? pgResult.lost +
      pgResult.duplicated +
      pgResult.doubleClaimed +
      pgResult.unclaimed +
      pgResult.storeClaims.claimedTwice
    : 0) +
  (jobs === count ? 0 : 1) +
  (jobsAfter === count ? 0 : 1);
if (bodiesOverBudget > 0) {
  console.error("bodies at once grew the server past the in-flight budget plus its slack");
  process.exitCode = 1;
}
if (correctness > 0) {
  console.error("a correctness target was missed (lost, duplicated or double-claimed jobs)");
  process.exitCode = 1;
}
