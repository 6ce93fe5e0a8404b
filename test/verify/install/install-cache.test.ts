// The install cache's own rules: keys that change with the lockfile, manager or platform,
// a publish that is one rename (a second publisher of the same key keeps the first), and
// least-recently-used eviction under a size cap.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, mkdtemp, symlink, utimes, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import {
  cliInstallCache,
  evictCache,
  findCacheEntry,
  installCacheKey,
  installCacheRoot,
  publishCacheEntry,
  stageCacheEntry,
} from "../../../src/verify/install/install-cache.ts";

async function dir(files: Record<string, string> = {}): Promise<string> {
  const d = await mkdtemp(join(tmpdir(), "autogen-cache-test-"));
  for (const [name, text] of Object.entries(files)) await writeFile(join(d, name), text);
  return d;
}

async function entry(root: string, key: string, bytes: number, usedSecondsAgo: number): Promise<void> {
  const staging = await stageCacheEntry(root, key);
  await writeFile(join(staging, "blob"), Buffer.alloc(bytes));
  await publishCacheEntry(root, key, staging);
  const when = new Date(Date.now() - usedSecondsAgo * 1000);
  await utimes(join(root, key, ".autogen-used"), when, when);
}

describe("install cache", () => {
  it("keys by manager, lockfile bytes, manifest bytes and platform", async () => {
    const a = await dir({ "package-lock.json": "{1}", "package.json": "{}" });
    const b = await dir({ "package-lock.json": "{2}", "package.json": "{}" });
    const c = await dir({ "package-lock.json": "{1}", "package.json": "{ }" });
    const key = installCacheKey(a, "npm", ["package-lock.json", "package.json"], "linux-x64-node24");
    expect(key).toMatch(/^npm-[0-9a-f]{32}$/);
    expect(installCacheKey(a, "npm", ["package-lock.json", "package.json"], "linux-x64-node24")).toBe(key);
    expect(installCacheKey(b, "npm", ["package-lock.json", "package.json"], "linux-x64-node24")).not.toBe(key);
    expect(installCacheKey(c, "npm", ["package-lock.json", "package.json"], "linux-x64-node24")).not.toBe(key);
    expect(installCacheKey(a, "npm", ["package-lock.json", "package.json"], "linux-arm64-node24")).not.toBe(key);
    expect(installCacheKey(a, "pnpm", ["package-lock.json", "package.json"], "linux-x64-node24")).not.toMatch(
      key.slice(4),
    );
  });

  it("finds only published entries; a second publish of the same key keeps the first", async () => {
    const root = await dir();
    const first = await stageCacheEntry(root, "npm-k");
    expect(await findCacheEntry(root, "npm-k")).toBeUndefined();
    await writeFile(join(first, "who"), "first");
    const second = await stageCacheEntry(root, "npm-k");
    await writeFile(join(second, "who"), "second");
    expect(await publishCacheEntry(root, "npm-k", first)).toBe(join(root, "npm-k"));
    expect(await publishCacheEntry(root, "npm-k", second)).toBe(join(root, "npm-k"));
    expect(await findCacheEntry(root, "npm-k")).toBe(join(root, "npm-k"));
    expect(existsSync(second)).toBe(false);
    expect(readFileSync(join(root, "npm-k", "who"), "utf8")).toBe("first");
  });

  it("evicts least recently used entries until under the cap, never the one in use", async () => {
    const root = await dir();
    await entry(root, "old", 4000, 300);
    await entry(root, "mid", 4000, 200);
    await entry(root, "new", 4000, 100);
    await mkdir(join(root, ".tool-cache"));
    expect(await evictCache(root, 9000, ["old"])).toEqual(["mid"]);
    expect(existsSync(join(root, "old"))).toBe(true);
    expect(existsSync(join(root, "mid"))).toBe(false);
    // A use refreshes an entry: "old" is now the newest.
    await findCacheEntry(root, "old");
    expect(await evictCache(root, 5000)).toEqual(["new"]);
    expect(existsSync(join(root, ".tool-cache"))).toBe(true);
  });

  it("removes staging directories left a day ago by a job that died mid-install, and keeps today's", async () => {
    const root = await dir();
    const dead = await stageCacheEntry(root, "npm-a");
    const live = await stageCacheEntry(root, "npm-b");
    const yesterday = new Date(Date.now() - 25 * 3600_000);
    await utimes(dead, yesterday, yesterday);
    await evictCache(root, 1024 ** 3);
    expect(existsSync(dead)).toBe(false);
    expect(existsSync(live)).toBe(true);
  });

  it("lives under the bot's data dir unless the operator names another absolute path", () => {
    expect(installCacheRoot({ XDG_DATA_HOME: "/data" })).toBe("/data/autogen-bot/install-cache");
    expect(installCacheRoot({ XDG_DATA_HOME: "/data", AUTOGEN_INSTALL_CACHE: "/cache" })).toBe("/cache");
    expect(installCacheRoot({ XDG_DATA_HOME: "/data", AUTOGEN_INSTALL_CACHE: "relative" })).toBe(
      "/data/autogen-bot/install-cache",
    );
  });
});

describe("the CLI's install cache", () => {
  it("is one scope per checkout (a link to it is the same checkout), under the cache root", async () => {
    const env = { AUTOGEN_INSTALL_CACHE: "/srv/cache" };
    const a = await dir({ "package-lock.json": "{}" });
    const b = await dir({ "package-lock.json": "{}" });
    const link = join(await dir(), "link");
    await symlink(a, link);
    expect(cliInstallCache(env, a)).toMatch(/^\/srv\/cache\/[0-9a-f]{24}$/);
    expect(cliInstallCache(env, b)).not.toBe(cliInstallCache(env, a));
    expect(cliInstallCache(env, link)).toBe(cliInstallCache(env, a));
  });
});
