// Resolves a repository-relative path from untrusted text (the model's edits) and refuses
// anything that leaves the repository, goes through a symbolic link, or enters `.git`.
import { lstatSync } from "node:fs";
import { isAbsolute, join, normalize, sep } from "node:path";

export class UnsafePathError extends Error {
  constructor(path: string, reason: string) {
    super(`refusing path ${JSON.stringify(path)}: ${reason}`);
    this.name = "UnsafePathError";
  }
}

export function safeRepoPath(root: string, path: string): string {
  if (!path || /[\0\r\n]/.test(path)) throw new UnsafePathError(path, "empty or contains control characters");
  if (isAbsolute(path) || /^[A-Za-z]:/.test(path)) throw new UnsafePathError(path, "absolute paths are not allowed");
  const relative = normalize(path);
  const parts = relative.split(sep);
  if (parts[0] === ".." || relative === "..") throw new UnsafePathError(path, "it leaves the repository");
  if (parts.some((p) => p.toLowerCase() === ".git")) throw new UnsafePathError(path, "the .git directory is off limits");
  let current = root;
  for (const part of parts) {
    current = join(current, part);
    const stat = lstatSync(current, { throwIfNoEntry: false });
    if (!stat) break;
    if (stat.isSymbolicLink()) throw new UnsafePathError(path, "it goes through a symbolic link");
  }
  return join(root, relative);
}
