// A repository's config read through GitHub (the App's and the Action's doors): every way
// the file can be wrong (a directory or a link in its place, too large, not UTF-8, and all
// that parse-repo-config.ts refuses) is a RepoConfigError, the one error the doors answer
// with "your config is invalid". An outage stays what it is. A missing file means every default.
import type { Forge } from "./forge.ts";
import { UnreadableFileError } from "./unreadable-file-error.ts";
import { parseRepoConfigText, REPO_CONFIG_PATH, RepoConfigError } from "../config/parse-repo-config.ts";
import type { RepoConfig } from "../config/repo-config-schema.ts";

export async function readRepoConfigFromForge(
  forge: Pick<Forge, "readFile">,
  owner: string,
  repo: string,
  ref: string,
): Promise<RepoConfig> {
  let text: string | undefined;
  try {
    text = await forge.readFile(owner, repo, REPO_CONFIG_PATH, ref);
  } catch (error) {
    if (error instanceof UnreadableFileError) throw new RepoConfigError([`cannot be read: ${error.reason}`]);
    throw error;
  }
  return parseRepoConfigText(text ?? "");
}
