// The version of a package the repository installed (node_modules/<name>/package.json),
// so the arguments we add are ones that version understands.
import { realpathSync } from "node:fs";
import { join } from "node:path";
import { readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";

/** Major version, or undefined when the package is not installed or its version is unreadable. */
export function installedMajor(dir: string, name: string): number | undefined {
  try {
    // node_modules is often a link the bot made (the install cache, the CLI's checkout): the
    // package's files are read through the gate below wherever it really is.
    const modules = realpathSync(join(dir, "node_modules"));
    const pkg = JSON.parse(readWorktreeTextSync(modules, `${name}/package.json`, { maxBytes: 1024 * 1024 })) as {
      version?: unknown;
    };
    const major = typeof pkg.version === "string" ? /^(\d+)\./.exec(pkg.version)?.[1] : undefined;
    return major === undefined ? undefined : Number(major);
  } catch {
    return undefined;
  }
}
