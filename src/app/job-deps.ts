// What an App job (issue or red build) gets from the process that runs it: the store, the
// forge and CI of an installation, the model factory, memory, and the knobs tests shorten.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { MemoryPool } from "../engine/memory/memory-pool.ts";
import type { BotIdentity } from "../forge/bot-identity.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import type { Forge } from "../forge/forge.ts";
import type { JobCheckpoint } from "../jobs/job-checkpoint.ts";
import type { Job, Store } from "../jobs/store.ts";
import type { LlmClient } from "../llm/llm-client.ts";
import type { RunWaiters } from "../verify/run-waiters.ts";
import type { JobRetryPolicy } from "./job-retry.ts";

export type JobDeps = {
  store: Store;
  forgeFor: (installationId: number) => Promise<Forge>;
  /** Who the bot's commits are by (the App's `<slug>[bot]`, looked up once per process). */
  botIdentity: (installationId: number) => Promise<BotIdentity>;
  cacheRoot: string;
  /** A model client for this job (its own budget), or undefined to run model-free. */
  llmFor?: ((config: RepoConfig, job: Job, signal: AbortSignal) => LlmClient | undefined) | undefined;
  statusThrottleMs?: number;
  memory?: MemoryPool | undefined;
  /** Reads CI and dispatches verification runs for an installation. */
  ciFor: (installationId: number) => Promise<CiForge>;
  /** Wakes verifiers waiting on an Actions run when its webhook arrives. */
  waiters: RunWaiters;
  /** How often to poll GitHub for runs (tests shorten it). */
  pollMs?: number | undefined;
  /** Limit for one Actions verification run (default: the repository's test timeout plus 10 minutes). */
  actionsTimeoutMs?: number | undefined;
  /** Queues a follow-up job (a red build whose head moved: again on the new head). */
  restart?: ((job: Job, checkpoint: JobCheckpoint) => Promise<void>) | undefined;
  /** Runs of a job whose GitHub calls fail (default: 5, from 30 s apart). */
  jobRetry?: JobRetryPolicy | undefined;
  log: { info: (meta: object, msg: string) => void; warn: (meta: object, msg: string) => void };
  /** The job knows the commit it concerns: its `autogen` check run starts there (never throws). */
  checkRunStarted?: ((job: Job, sha: string) => Promise<void>) | undefined;
  /** Applied to the repository's config when a job reads it (the GitHub Action's inputs). */
  configOverride?: ((config: RepoConfig) => RepoConfig) | undefined;
};
