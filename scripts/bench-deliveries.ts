// `npm run bench:deliveries -- [count] [clients,clients,...]`: signed `issues.labeled` deliveries
// posted to `autogen-bot serve`'s server (the bounded ingress into the durable inbox) on
// loopback as fast as it accepts them. GitHub is a local stand-in answering at once (the
// inbox's handlers read the config and check permission over HTTP; bench:ingress makes it
// answer after 150 ms). Jobs are queued, not run (no workers). Prints acknowledgement
// latency p50/p99, whether any delivery was lost once the inbox drained, and how
// redeliveries were treated. Target: p99 < 100 ms.
import { createHmac, generateKeyPairSync } from "node:crypto";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadServerConfig } from "../src/config/env-config.ts";
import { startServer } from "../src/server/start-server.ts";

const count = Number(process.argv[2] ?? 1000);
const clientCounts = (process.argv[3] ?? "1,4,16").split(",").map(Number);
const secret = "bench-webhook-secret";
const dir = await mkdtemp(join(tmpdir(), "autogen-bench-deliveries-"));

// GitHub stand-in: installation tokens, no config file, write permission, reactions.
const github = createServer((req, res) => {
  const url = req.url ?? "";
  req.resume();
  req.on("end", () => {
    res.setHeader("content-type", "application/json");
    if (url.includes("/access_tokens"))
      res
        .writeHead(201)
        .end(JSON.stringify({ token: "ghs_bench", expires_at: new Date(Date.now() + 3600_000).toISOString() }));
    else if (url.includes("/contents/")) res.writeHead(404).end(JSON.stringify({ message: "Not Found" }));
    else if (url.includes("/permission"))
      res.writeHead(200).end(JSON.stringify({ permission: "write", role_name: "write" }));
    else res.writeHead(201).end("{}");
  });
});
await new Promise<void>((resolve) => github.listen(0, "127.0.0.1", resolve));
const githubUrl = `http://127.0.0.1:${(github.address() as AddressInfo).port}`;

const privateKey = generateKeyPairSync("rsa", { modulusLength: 2048 })
  .privateKey.export({ type: "pkcs1", format: "pem" })
  .toString();
const config = loadServerConfig({
  APP_ID: "1",
  PRIVATE_KEY: privateKey,
  WEBHOOK_SECRET: secret,
  HOST: "127.0.0.1",
  PORT: "0",
  LOG_LEVEL: "fatal",
  AUTOGEN_DB_PATH: join(dir, "autogen.db"),
});
const running = await startServer({ ...config, baseUrl: githubUrl, concurrency: 0 });
const store = running.store;
const url = `${running.url}/api/github/webhooks`;

/** Waits until the inbox has handled every stored delivery. */
async function drained(): Promise<void> {
  while ((await store.inboxDepth()).pending > 0) await new Promise((resolve) => setTimeout(resolve, 50));
  await running.inbox.idle();
}

function delivery(n: number, round: number): { id: string; body: string } {
  const payload = {
    action: "labeled",
    issue: { number: round * 1_000_000 + n, title: `Bug ${n}`, body: "steps", user: { login: "reporter" } },
    label: { name: "autogen" },
    repository: { name: "shop", full_name: "octo-org/shop", default_branch: "main", owner: { login: "octo-org" } },
    sender: { login: "maintainer", id: 7, type: "User" },
    installation: { id: 99 },
  };
  return { id: `bench-${round}-${n}`, body: JSON.stringify(payload) };
}

async function post(d: { id: string; body: string }): Promise<{ ms: number; status: number }> {
  const started = performance.now();
  const response = await fetch(url, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      "x-github-event": "issues",
      "x-github-delivery": d.id,
      "x-hub-signature-256": `sha256=${createHmac("sha256", secret).update(d.body).digest("hex")}`,
    },
    body: d.body,
  });
  await response.arrayBuffer();
  return { ms: performance.now() - started, status: response.status };
}

async function send(
  list: Array<{ id: string; body: string }>,
  clients: number,
): Promise<Array<{ ms: number; status: number }>> {
  const results: Array<{ ms: number; status: number }> = [];
  let next = 0;
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (next < list.length) {
        const d = list[next++];
        if (d) results.push(await post(d));
      }
    }),
  );
  return results;
}

console.log(
  `${count} signed issues.labeled deliveries per row, each a new job (queued, not run) once the inbox handled it; GitHub answered at once by a local stand-in`,
);
console.log("clients | per second | ack p50 | ack p99 | max | lost | redelivered: new jobs");
for (const [round, clients] of clientCounts.entries()) {
  const deliveries = Array.from({ length: count }, (_, i) => delivery(i + 1, round));
  const before = (await store.queueDepth()).queued;
  const started = performance.now();
  const results = await send(deliveries, clients);
  const seconds = (performance.now() - started) / 1000;
  await drained();
  const times = results.map((r) => r.ms).sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))] ?? 0;
  const queued = (await store.queueDepth()).queued - before;
  const ok = results.filter((r) => r.status === 202).length;
  await send(deliveries.slice(0, Math.min(200, count)), clients);
  await drained();
  const duplicates = (await store.queueDepth()).queued - before - queued;
  console.log(
    `${String(clients).padStart(7)} | ${(count / seconds).toFixed(0).padStart(10)} | ${q(0.5).toFixed(1).padStart(5)} ms | ${q(0.99).toFixed(1).padStart(5)} ms | ${(times.at(-1) ?? 0).toFixed(1).padStart(5)} ms | ${count - Math.min(queued, ok)} | ${duplicates} of ${Math.min(200, count)}`,
  );
}
console.log("target: p99 < 100 ms; lost and redelivered-new-jobs must be 0");

await running.stop();
github.close();
await rm(dir, { recursive: true, force: true });
