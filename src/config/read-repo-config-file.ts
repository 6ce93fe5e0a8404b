// A repository's config read from a checkout on disk (the CLI's doors): through the
// worktree gate (no link, no device, bounded), as UTF-8, into a RepoConfig or a
// RepoConfigError. A missing file means every default.
import { readWorktreeBytes } from "../workspace/read-worktree-file.ts";
import { UnsafePathError } from "../workspace/safe-path.ts";
import { parseRepoConfigText, REPO_CONFIG_MAX_BYTES, REPO_CONFIG_PATH, RepoConfigError } from "./parse-repo-config.ts";
import type { RepoConfig } from "./repo-config-schema.ts";

/** The config's text, or undefined when there is no file. Throws RepoConfigError when it cannot be read safely. */
export async function readRepoConfigText(root: string, path = REPO_CONFIG_PATH): Promise<string | undefined> {
  let bytes: Buffer;
  try {
    bytes = await readWorktreeBytes(root, path, { maxBytes: REPO_CONFIG_MAX_BYTES });
  } catch (error) {
    if (error instanceof UnsafePathError) {
      if (/no such file/.test(error.message)) return undefined;
      throw new RepoConfigError([`cannot be read: ${error.message.replace(/^refusing path "[^"]*": /, "")}`]);
    }
    throw new RepoConfigError([`cannot be read (${(error as NodeJS.ErrnoException).code ?? "error"})`]);
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new RepoConfigError(["is not UTF-8 text: save it as UTF-8"]);
  }
}

export async function readRepoConfigFile(root: string, path = REPO_CONFIG_PATH): Promise<RepoConfig> {
  return parseRepoConfigText((await readRepoConfigText(root, path)) ?? "");
}
