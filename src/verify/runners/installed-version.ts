// The version of a package the repository installed (node_modules/<name>/package.json),
// so the arguments we add are ones that version understands.
import { readFileSync } from "node:fs";
import { join } from "node:path";

/** Major version, or undefined when the package is not installed or its version is unreadable. */
export function installedMajor(dir: string, name: string): number | undefined {
  try {
    const pkg = JSON.parse(readFileSync(join(dir, "node_modules", name, "package.json"), "utf8")) as { version?: unknown };
    const major = typeof pkg.version === "string" ? /^(\d+)\./.exec(pkg.version)?.[1] : undefined;
    return major === undefined ? undefined : Number(major);
  } catch {
    return undefined;
  }
}
