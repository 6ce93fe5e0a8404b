// A repository as the forge's calls name it (`owner`, `repo`), read from a webhook payload's
// `repository` where no Probot context is at hand (its `context.repo()` does the same).
export type RepoRef = { owner: string; repo: string };

/** The `repository` of a webhook payload, as far as naming it goes. */
export type PayloadRepository = { name: string; owner: { login: string } };

export function repoOf(payload: { repository: PayloadRepository }): RepoRef {
  return { owner: payload.repository.owner.login, repo: payload.repository.name };
}
