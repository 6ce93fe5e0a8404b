// The repository's source files worth reading: tracked or not, without dependencies,
// build output, VCS data, binaries or huge files.
import { readdirSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { grammarForFile } from "../template/tree-sitter.ts";

const SKIP_DIRS = new Set([
  ".git",
  "node_modules",
  "dist",
  "build",
  "coverage",
  "__pycache__",
  ".venv",
  "venv",
  ".tox",
  "vendor",
  "target",
  ".next",
  ".mypy_cache",
  ".pytest_cache",
]);
const TEXT = /\.(py|[cm]?[jt]sx?|md|rst|txt|toml|cfg|ini|json|ya?ml|go|rs|java|rb)$/;

export function repoFiles(root: string, options: { maxFiles?: number; maxBytes?: number } = {}): string[] {
  const maxFiles = options.maxFiles ?? 5000;
  const maxBytes = options.maxBytes ?? 256 * 1024;
  const out: string[] = [];
  const walk = (dir: string) => {
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      if (out.length >= maxFiles) return;
      if (entry.isSymbolicLink()) continue;
      const full = join(dir, entry.name);
      if (entry.isDirectory()) {
        if (!SKIP_DIRS.has(entry.name) && !entry.name.startsWith(".")) walk(full);
      } else if (entry.isFile() && TEXT.test(entry.name) && statSync(full).size <= maxBytes) {
        out.push(relative(root, full));
      }
    }
  };
  walk(root);
  return out.sort();
}

export function isSourceFile(path: string): boolean {
  return grammarForFile(path) !== undefined;
}
