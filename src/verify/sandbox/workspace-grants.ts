// Directories outside a workspace that the bot itself gave that workspace: node_modules it
// linked in (the user's checkout's, or an install-cache entry) and installed dependencies
// read through variables it set (a pip target, a Go module cache). Each is shown read-only
// to the runs of that workspace (and of the bot's copies of it) only: another
// repository's job in the same process never sees it, whatever links or variables that
// repository commits.
import { realpathSync } from "node:fs";
import { resolve } from "node:path";

const grants = new Map<string, Set<string>>();

function real(path: string): string {
  try {
    return realpathSync(path);
  } catch {
    return resolve(path);
  }
}

/** `dir` is shown read-only to runs whose workspace is `workspace`. */
export function grantDirectory(workspace: string, dir: string): void {
  const key = real(workspace);
  const set = grants.get(key) ?? new Set<string>();
  set.add(real(dir));
  grants.set(key, set);
}

/** A copy of a workspace the bot made (a validation slot, a scratch copy) sees what the original may. */
export function shareGrants(from: string, to: string): void {
  for (const dir of grants.get(real(from)) ?? []) grantDirectory(to, dir);
}

/** The workspace is gone: its grants go with it. */
export function revokeGrants(workspace: string): void {
  grants.delete(real(workspace));
}

export function grantedDirectories(workspace: string): ReadonlySet<string> {
  return grants.get(real(workspace)) ?? new Set<string>();
}
