// How every App job begins: the eyes reaction, its status comment, the repository, and
// the repository's config read from the default branch (a pull request cannot change the
// rules it is judged by). When the config is invalid the job stops here, saying why in
// its status comment.
import { REPO_CONFIG_PATH, RepoConfigError } from "../config/parse-repo-config.ts";
import { readRepoConfigFromForge } from "../forge/read-repo-config-forge.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { Forge } from "../forge/forge.ts";
import type { Job, Store } from "../jobs/store.ts";
import type { StatusReporter } from "./status-reporter.ts";

export async function beginJob(
  forge: Forge,
  store: Store,
  status: StatusReporter,
  job: Job,
  override?: (config: RepoConfig) => RepoConfig,
): Promise<{ repository: { defaultBranch: string; cloneUrl: string }; config: RepoConfig } | undefined> {
  await forge.react(job.owner, job.repo, job.number, "eyes").catch(() => undefined);
  await status.start();
  const repository = await forge.repository(job.owner, job.repo);
  const read = await loadJobConfig(forge, store, status, job, repository.defaultBranch);
  const config = read && override ? override(read) : read;
  return config ? { repository, config } : undefined;
}

async function loadJobConfig(
  forge: Forge,
  store: Store,
  status: StatusReporter,
  job: Job,
  defaultBranch: string,
): Promise<RepoConfig | undefined> {
  status.set("Configuration", "running");
  try {
    return await readRepoConfigFromForge(forge, job.owner, job.repo, defaultBranch);
  } catch (error) {
    if (!(error instanceof RepoConfigError)) throw error;
    status.set("Configuration", "failed", `${REPO_CONFIG_PATH} is invalid`);
    await status.finish(
      `Stopped: \`${REPO_CONFIG_PATH}\` on \`${defaultBranch}\` is invalid:\n\n${error.problems.map((p) => `- ${p}`).join("\n")}`,
    );
    await store.finish(job.id, "failed", error.message);
    return undefined;
  }
}
