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
import type { LlmEndpoint } from "../config/llm-env.ts";
import type { BudgetCaps } from "../llm/budget.ts";
import type { Price } from "../llm/prices.ts";
import { llmFactory, doorScrubber } from "../llm/make-llm.ts";
import type { Scrubber } from "../report/scrub-secrets.ts";
import { createAutogenApp } from "./create-app.ts";
import type { JobDeps } from "./run-issue-job.ts";

export type AppHandle = { app: ApplicationFunction; store: Store; pool: () => WorkerPool | undefined; llmFor: JobDeps["llmFor"] };

/** The job store: Postgres when DATABASE_URL is set (several instances), else SQLite. */
export async function openStore(config: Pick<ServerConfig, "dbPath" | "databaseUrl">): Promise<Store> {
  return config.databaseUrl ? PgStore.open(config.databaseUrl) : new JobStore(config.dbPath);
}

export async function appFromConfig(config: ServerConfig, env: NodeJS.ProcessEnv = process.env): Promise<AppHandle> {
  const dataDir = dirname(config.dbPath);
  const store = await openStore(config);
  const memory = new MemoryPool(join(dataDir, "memory.db"));
  const scrub = doorScrubber(env, [config.privateKey, config.webhookSecret, config.llm?.apiKey]);
  const llmFor = appLlmFor(config, scrub, dataDir);
  let pool: WorkerPool | undefined;
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

/** A model client per job (see make-llm.ts): the job's transcript beside the job store, `/autogen stop` aborting a call in flight. */
export function appLlmFor(config: { llm?: LlmEndpoint | undefined; caps?: BudgetCaps | undefined; prices: Record<string, Price> }, scrub: Scrubber, dataDir: string): JobDeps["llmFor"] {
  if (!config.llm) return undefined;
  const make = llmFactory({ endpoint: config.llm, scrub, prices: config.prices, caps: config.caps });
  return (repoConfig, job, signal) => make({ budgets: repoConfig.budgets, transcriptPath: join(dataDir, "transcripts", `job-${job.id}.jsonl`), signal });
}
