// The App with its dependencies built from the validated server configuration: the job
// store, the repository cache beside it, the secret scrubber over this process's
// secrets, and (when an endpoint is configured) a model client per job whose budget is
// the lower of the repository's and the server's caps.
import { dirname, join } from "node:path";
import type { ApplicationFunction } from "probot";
import type { ServerConfig } from "../config/env-config.ts";
import { MemoryPool } from "../engine/memory/memory-pool.ts";
import { JobStore } from "../jobs/job-store.ts";
import { PgStore } from "../jobs/pg-store.ts";
import type { Store } from "../jobs/store.ts";
import type { WorkerPool } from "../jobs/worker-pool.ts";
import { jobLlmClient } from "../llm/job-llm-client.ts";
import { processSecrets, secretScrubber } from "../secrets/scrub-secrets.ts";
import { droppedSecrets } from "../secrets/drop-secrets.ts";
import { createAutogenApp } from "./create-app.ts";
import type { JobDeps } from "./job-deps.ts";

export type AppHandle = {
  app: ApplicationFunction;
  store: Store;
  pool: () => WorkerPool | undefined;
  llmFor: JobDeps["llmFor"];
};

/** The job store: Postgres when DATABASE_URL is set (several instances), else SQLite. */
export async function openStore(config: Pick<ServerConfig, "dbPath" | "databaseUrl">): Promise<Store> {
  return config.databaseUrl ? PgStore.open(config.databaseUrl) : new JobStore(config.dbPath);
}

export async function appFromConfig(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<AppHandle> {
  const dataDir = dirname(config.dbPath);
  const store = await openStore(config);
  const memory = new MemoryPool(join(dataDir, "memory.db"));
  const scrub = secretScrubber([
    ...processSecrets(env),
    ...droppedSecrets(),
    config.privateKey,
    config.webhookSecret,
    config.llm?.apiKey,
  ]);
  const { llm, caps } = config;
  let pool: WorkerPool | undefined;
  const llmFor: JobDeps["llmFor"] = llm
    ? (repoConfig, job, signal) =>
        jobLlmClient({
          endpoint: llm,
          budgets: repoConfig.budgets,
          serverCaps: caps,
          prices: config.prices,
          transcriptPath: join(dataDir, "transcripts", `job-${job.id}.jsonl`),
          scrub,
          // `/autogen stop` aborts a model call in flight.
          signal,
        })
    : undefined;
  const app = createAutogenApp({
    store,
    cacheRoot: join(dataDir, "repos"),
    scrub,
    concurrency: config.concurrency,
    perInstallation: Math.max(1, Math.ceil(config.concurrency / 2)),
    appId: config.appId,
    onReady: (p) => (pool = p),
    memory,
    llmFor,
  });
  return { app, store, pool: () => pool, llmFor };
}
