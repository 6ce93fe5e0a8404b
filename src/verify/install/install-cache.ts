// Installed dependencies kept between jobs, one directory per key: sha256 of the package
// manager, the lockfile (and manifest) bytes and the platform. An entry is built in a
// staging directory and published with one rename, so a reader sees a whole entry or
// none; entries are evicted least recently used first when the cache passes its size cap.
import { createHash } from "node:crypto";
import { existsSync, realpathSync } from "node:fs";
import { readWorktreeBytesSync } from "../../workspace/read-worktree-file.ts";
import { lstat, mkdir, mkdtemp, readdir, rename, rm, stat, utimes, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { defaultDataDir } from "../../config/data-dir.ts";

/** What marks an entry as used: its mtime is the last use. Written last, so it also marks a complete entry. */
const USED = ".autogen-used";
const STAGING_PREFIX = ".staging-";
const STALE_STAGING_MS = 24 * 3600_000;
export const DEFAULT_CACHE_BYTES = 10 * 1024 ** 3;

export function installCacheRoot(env: NodeJS.ProcessEnv = process.env): string {
  return env.AUTOGEN_INSTALL_CACHE && env.AUTOGEN_INSTALL_CACHE.startsWith("/")
    ? env.AUTOGEN_INSTALL_CACHE
    : join(defaultDataDir(env), "install-cache");
}

/**
 * The App's install cache for one scope (an installation's repository, or one fork's pull
 * request): beside its repository cache, in its data dir. Entries and the tools' download
 * caches are never shared across scopes: an install runs the repository's own scripts, so
 * a shared entry would let one repository plant code in another's tests, or read another's
 * private packages.
 */
export function appInstallCache(repositoryCache: string, scope: string): string {
  return scopedInstallCache(join(dirname(repositoryCache), "install-cache"), scope);
}

/** One scope's directory under a cache root (its entries and its tools' download caches). */
export function scopedInstallCache(root: string, scope: string): string {
  return join(root, createHash("sha256").update(`autogen-install-scope-v1\0${scope}`).digest("hex").slice(0, 24));
}

/**
 * The CLI's install cache for one checkout: every repository the user runs the bot on
 * shares the machine, and any of them may be hostile and copy another's lockfile, so
 * entries are never shared between checkouts (as the App's are never shared between
 * repositories).
 */
export function cliInstallCache(env: NodeJS.ProcessEnv, checkout: string): string {
  let real = checkout;
  try {
    real = realpathSync(checkout);
  } catch {
    // a checkout that vanished has nothing to share anyway
  }
  return scopedInstallCache(installCacheRoot(env), `checkout\0${real}`);
}

/** The cache key: the manager, each key file's name and bytes, the platform and the Node major (native modules), and the interpreter when it matters (`extra`). */
export function installCacheKey(
  workspace: string,
  manager: string,
  keyFiles: readonly string[],
  platform = `${process.platform}-${process.arch}-node${process.versions.node.split(".")[0] ?? ""}`,
  extra = "",
): string {
  const hash = createHash("sha256");
  hash.update(`autogen-install-v1\0${manager}\0${platform}\0${extra}\0`);
  for (const name of keyFiles) {
    hash.update(`${name}\0`);
    hash.update(readWorktreeBytesSync(workspace, name, { maxBytes: 256 * 1024 * 1024 }));
    hash.update("\0");
  }
  return `${manager}-${hash.digest("hex").slice(0, 32)}`;
}

/** The published entry for a key (its last use updated), or undefined. */
export async function findCacheEntry(root: string, key: string): Promise<string | undefined> {
  const entry = join(root, key);
  if (!existsSync(join(entry, USED))) return undefined;
  const now = new Date();
  await utimes(join(entry, USED), now, now).catch(() => undefined);
  return entry;
}

/** A fresh staging directory beside the entries (same file system, so publishing is a rename). */
export async function stageCacheEntry(root: string, key: string): Promise<string> {
  await mkdir(root, { recursive: true, mode: 0o755 });
  return mkdtemp(join(root, `${STAGING_PREFIX}${key}-`));
}

/**
 * Publishes a staged entry under its key. When another job published the same key
 * first, theirs is kept and ours removed; either way the published path is returned.
 */
export async function publishCacheEntry(root: string, key: string, staging: string): Promise<string> {
  await writeFile(join(staging, USED), "");
  const entry = join(root, key);
  try {
    await rename(staging, entry);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code !== "ENOTEMPTY" && code !== "EEXIST") throw error;
    await rm(staging, { recursive: true, force: true });
  }
  return entry;
}

/** Removes least recently used entries until the cache is at most `capBytes`; `keep` is never removed. Returns the keys removed. */
export async function evictCache(root: string, capBytes: number, keep: readonly string[] = []): Promise<string[]> {
  if (!existsSync(root)) return [];
  const entries: Array<{ key: string; bytes: number; used: number }> = [];
  for (const key of await readdir(root)) {
    // A staging directory a day old belongs to a job that died mid-install.
    if (key.startsWith(STAGING_PREFIX)) {
      const made = await stat(join(root, key)).catch(() => undefined);
      if (made && Date.now() - made.mtimeMs > STALE_STAGING_MS)
        await rm(join(root, key), { recursive: true, force: true });
      continue;
    }
    // The tools' download caches (.tool-cache) are not entries.
    if (key.startsWith(".")) continue;
    const used = await stat(join(root, key, USED)).catch(() => undefined);
    entries.push({ key, bytes: await treeBytes(join(root, key)), used: used?.mtimeMs ?? 0 });
  }
  let total = entries.reduce((sum, e) => sum + e.bytes, 0);
  const removed: string[] = [];
  for (const e of entries.sort((a, b) => a.used - b.used)) {
    if (total <= capBytes) break;
    if (keep.includes(e.key)) continue;
    // Renamed away first, so no job finds a half-removed entry.
    const doomed = join(root, `${STAGING_PREFIX}evict-${e.key}`);
    await rename(join(root, e.key), doomed).catch(() => undefined);
    await rm(doomed, { recursive: true, force: true });
    total -= e.bytes;
    removed.push(e.key);
  }
  return removed;
}

/** Bytes on disk of a tree, links counted as themselves (never followed). */
async function treeBytes(path: string): Promise<number> {
  const info = await lstat(path).catch(() => undefined);
  if (!info) return 0;
  if (!info.isDirectory()) return info.size;
  let sum = 0;
  for (const name of await readdir(path).catch(() => [] as string[])) sum += await treeBytes(join(path, name));
  return sum;
}
