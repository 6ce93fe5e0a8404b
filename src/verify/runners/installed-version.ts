// The version of a package the repository installed (node_modules/<name>/package.json),
// so the arguments we add are ones that version understands. Read through the worktree gate: a
// test may have left a link, FIFO or device there (a linked package reads as unknown).
import { readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";

/** Major version, or undefined when the package is not installed or its version is unreadable. */
export function installedMajor(dir: string, name: string): number | undefined {
  try {
    const pkg = JSON.parse(readWorktreeTextSync(dir, `node_modules/${name}/package.json`, { maxBytes: 1024 * 1024 })) as { version?: unknown };
    const major = typeof pkg.version === "string" ? /^(\d+)\./.exec(pkg.version)?.[1] : undefined;
    return major === undefined ? undefined : Number(major);
  } catch {
    return undefined;
  }
}
