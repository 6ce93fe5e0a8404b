// The one gate between untrusted path text (the model's edits, coverage traces and test
// reports the repository's own code can forge) and the files the engine reads or writes:
// nothing outside the worktree, nothing through a symbolic link, nothing in `.git`.
import { constants, lstatSync, realpathSync } from "node:fs";
import { mkdir, open } from "node:fs/promises";
import { dirname, isAbsolute, join, normalize, resolve, sep } from "node:path";

export class UnsafePathError extends Error {
  constructor(path: string, reason: string) {
    super(`refusing path ${JSON.stringify(path)}: ${reason}`);
    this.name = "UnsafePathError";
  }
}

/**
 * Whether a file name a test report gave is one no honest tool writes: control characters
 * or a `..` segment. Such a name is dropped where reports are parsed, before any lookup.
 */
export function isForgedPath(path: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  return /[\x00-\x1f\x7f]/.test(path) || path.split(/[\\/]/).includes("..");
}

// Where the platform has it, O_NOFOLLOW makes the open itself refuse a symlink planted
// between our check and the write (a test process may still be running in a sibling slot).
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

/**
 * A repository-relative path as a full path under `root`; the file need not exist.
 * Refuses control characters, absolute paths, `..` out of the root, `.git` anywhere and any
 * symbolic link on the way (a link at the end too: a write would land on its target).
 */
export function safeRepoPath(root: string, path: string, options: { finalLink?: boolean } = {}): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (!path || /[\x00-\x1f\x7f]/.test(path)) throw new UnsafePathError(path, "empty or contains control characters");
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path)) throw new UnsafePathError(path, "absolute paths are not allowed");
  const relative = normalize(path);
  const parts = relative.split(sep);
  if (parts[0] === ".." || relative === "..") throw new UnsafePathError(path, "it leaves the repository");
  if (relative === "." || relative === `.${sep}`)
    throw new UnsafePathError(path, "it names the repository itself, not a file in it");
  if (parts.some((p) => p.toLowerCase() === ".git"))
    throw new UnsafePathError(path, "the .git directory is off limits");
  // The root itself may be reached through a link (/tmp on macOS); only what is below it is checked.
  let current = root;
  for (const [i, part] of parts.entries()) {
    current = join(current, part);
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (!stat) break;
    // `finalLink`: the path may name a link itself (to be read with lstat/readlink, never followed).
    if (stat.isSymbolicLink() && !(options.finalLink === true && i === parts.length - 1))
      throw new UnsafePathError(path, "it goes through a symbolic link");
  }
  return join(root, relative);
}

/**
 * An absolute path a tool reported (a V8 coverage URL, a trace, a report's file attribute)
 * as a repository-relative path: it must name something below `root`, as given or as
 * resolved, and pass `safeRepoPath`.
 */
export function repoRelativePath(root: string, absolute: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is refused
  if (/[\x00-\x1f\x7f]/.test(absolute)) throw new UnsafePathError(absolute, "empty or contains control characters");
  if (!isAbsolute(absolute)) throw new UnsafePathError(absolute, "expected an absolute path");
  // A reported path with `..` in it is forged or confused: resolving it lexically could name a different file than the tool ran.
  if (absolute.split(/[\\/]/).includes("..")) throw new UnsafePathError(absolute, "it leaves the repository");
  const prefixes = [...new Set([resolve(root), realpathSync(root)])].map((p) => (p.endsWith(sep) ? p : p + sep));
  const prefix = prefixes.find((p) => absolute.startsWith(p));
  if (!prefix) throw new UnsafePathError(absolute, "it is outside the repository");
  const relative = absolute.slice(prefix.length);
  safeRepoPath(root, relative);
  return relative;
}

/**
 * An existing file the engine may read for editing or overwrite: a regular file, not a
 * symbolic link, with no other hard link (one could be outside), whose real path is
 * inside the root's real path. Returns the full path.
 */
export function editableRepoFile(root: string, path: string): string {
  const full = safeRepoPath(root, path);
  const stat = lstatSync(full, { throwIfNoEntry: false });
  if (!stat) throw new UnsafePathError(path, "no such file in the repository");
  if (stat.isSymbolicLink()) throw new UnsafePathError(path, "it is a symbolic link");
  if (!stat.isFile()) throw new UnsafePathError(path, "it is not a regular file");
  if (stat.nlink > 1) throw new UnsafePathError(path, "it has other hard links, which may be outside the repository");
  if (!isInside(realpathSync(root), realpathSync(full)))
    throw new UnsafePathError(path, "it resolves outside the repository");
  return full;
}

/** Overwrites an editable repository file, or creates a new one (and its directories) at a safe path. */
export async function writeRepoFile(root: string, path: string, text: string): Promise<void> {
  const full = safeRepoPath(root, path);
  let flags: number;
  if (lstatSync(full, { throwIfNoEntry: false })) {
    editableRepoFile(root, path);
    flags = constants.O_WRONLY | constants.O_TRUNC | NOFOLLOW;
  } else {
    await mkdir(dirname(full), { recursive: true });
    if (!isInside(realpathSync(root), realpathSync(dirname(full)), true))
      throw new UnsafePathError(path, "its directory resolves outside the repository");
    // O_EXCL: a file (or link) that appeared since the check is not written through.
    flags = constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW;
  }
  const handle = await open(full, flags, 0o666);
  try {
    await handle.writeFile(text);
  } finally {
    await handle.close();
  }
}

function isInside(realRoot: string, realPath: string, orEqual = false): boolean {
  return (orEqual && realPath === realRoot) || realPath.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep);
}
