// Installs a repository's dependencies before its baseline, the way its lockfile says,
// in the sandbox (no secrets; network only with both consents, offline otherwise where
// the tool can), reusing the install cache when another job already installed the same
// lockfile. `test.setup` replaces this step; `test.install: off` turns it off.
import { cp, lstat, mkdir, readdir, readlink, rename, rm, symlink } from "node:fs/promises";
import { isAbsolute, join, relative, resolve, sep, dirname } from "node:path";
import type { RepoConfig } from "../../config/repo-config-schema.ts";
import { grantDirectory } from "../sandbox/workspace-grants.ts";
import { runSandboxed, type SandboxOptions } from "../sandbox/run-sandboxed.ts";
import { pythonExecutable } from "../runners/python-executable.ts";
import {
  detectPackageManager,
  INSTALL_TARGET_ARG,
  type InstallPlan,
  type PackageManager,
} from "./detect-package-manager.ts";
import {
  DEFAULT_CACHE_BYTES,
  evictCache,
  findCacheEntry,
  installCacheKey,
  installCacheRoot,
  publishCacheEntry,
  stageCacheEntry,
} from "./install-cache.ts";

/** What the report says about the install. */
export type InstallSummary = {
  manager: PackageManager;
  lockfile: string;
  command: string;
  /** "cache": an earlier job's install was reused; "fresh": installed now; "checkout": the user's own, read-only (CLI). */
  source: "cache" | "fresh" | "checkout";
  seconds: number;
  network: boolean;
  ok: boolean;
  /** Why a fresh install was not kept for later jobs, when it was not. */
  notCached?: string | undefined;
};

export type InstallResult =
  | { ran: false; reason: string }
  | { ran: true; ok: boolean; summary: InstallSummary; message: string; env: Record<string, string> };

export type InstallOptions = {
  cacheRoot?: string | undefined;
  cacheBytes?: number | undefined;
  /** The bot's environment (operator consent for network, the data dir). */
  env?: NodeJS.ProcessEnv | undefined;
};

export async function installDependencies(
  workspace: string,
  test: RepoConfig["test"],
  sandbox: Omit<SandboxOptions, "cwd">,
  options: InstallOptions = {},
): Promise<InstallResult> {
  if (test.setup) return { ran: false, reason: "test.setup is set and replaces the automatic install" };
  if (test.install === "off") return { ran: false, reason: "test.install is off" };
  const plan = detectPackageManager(workspace);
  if (!plan) return { ran: false, reason: "no lockfile the bot knows" };
  if (plan.target.kind === "node_modules" && (await lstat(join(workspace, "node_modules")).catch(() => undefined)))
    return { ran: false, reason: "node_modules is already present" };

  const env = options.env ?? process.env;
  const network = test.networkDuringSetup && env.AUTOGEN_ALLOW_SETUP_NETWORK === "1";
  const root = options.cacheRoot ?? installCacheRoot(env);
  const lockfile = plan.keyFiles[0] ?? "";
  // pip runs the real interpreter (a version manager's shim would try to write its own state), which also keys the cache.
  const python = plan.manager === "pip" ? pythonExecutable() : undefined;
  const key = installCacheKey(workspace, plan.manager, plan.keyFiles, undefined, python);
  const started = performance.now();
  const elapsed = () => Math.round((performance.now() - started) / 100) / 10;
  const argvTemplate = network ? plan.argv : (plan.offlineArgv ?? plan.argv);

  const cached = plan.target.kind === "in-place" ? undefined : await findCacheEntry(root, key);
  if (cached) {
    const extraEnv = await useEntry(workspace, plan, cached);
    const summary: InstallSummary = {
      manager: plan.manager,
      lockfile,
      command: argvTemplate.map((arg) => (arg === INSTALL_TARGET_ARG ? "<cache>/site" : arg)).join(" "),
      source: "cache",
      seconds: elapsed(),
      network: false,
      ok: true,
    };
    return {
      ran: true,
      ok: true,
      summary,
      message: `dependencies (${plan.manager}, ${lockfile}) from cache in ${summary.seconds} s`,
      env: extraEnv,
    };
  }

  const staging = await stageCacheEntry(root, key);
  const toolCache = join(root, ".tool-cache", plan.manager);
  await mkdir(toolCache, { recursive: true });
  const target = join(staging, "site");
  const argv = argvTemplate.map((arg) => (arg === INSTALL_TARGET_ARG ? target : arg));
  if (python) argv[0] = python;
  const run = await runSandboxed(argv, {
    ...sandbox,
    cwd: workspace,
    network,
    maxOutputBytes: 256 * 1024,
    // Ours, after the repository's test.env: where the tool writes and caches.
    env: { ...sandbox.env, ...toolEnv(plan, staging, toolCache) },
    writablePaths: [staging, toolCache],
  });
  const ok = run.exitCode === 0 && !run.timedOut && !run.spawnError;
  const command = shown([argvTemplate[0] ?? "", ...argv.slice(1)], staging);
  if (!ok) {
    await rm(staging, { recursive: true, force: true });
    const why = run.spawnError ?? run.limit?.message ?? `exit ${String(run.exitCode)}`;
    const net = network
      ? ""
      : test.networkDuringSetup
        ? "; it ran without network: the repository asks for it (test.networkDuringSetup), but whoever runs the bot has not allowed it (AUTOGEN_ALLOW_SETUP_NETWORK=1)"
        : `; it ran without network${plan.offlineArgv ? " (offline, from local sources and the install cache only)" : ""}: set test.networkDuringSetup: true (and AUTOGEN_ALLOW_SETUP_NETWORK=1 where the bot runs) if it downloads packages`;
    const summary: InstallSummary = {
      manager: plan.manager,
      lockfile,
      command,
      source: "fresh",
      seconds: elapsed(),
      network,
      ok: false,
    };
    return {
      ran: true,
      ok: false,
      summary,
      message: `the dependency install \`${command}\` (${plan.manager}, ${lockfile}) failed (${why})${net}; its output ends with: ${run.output.slice(-600).replaceAll(root, "<cache>").trim()}`,
      env: {},
    };
  }

  let notCached: string | undefined;
  let extraEnv: Record<string, string> = {};
  if (plan.target.kind === "node_modules") {
    // The install ran the repository's scripts: what it left may be a link to anywhere on the host, which must never be registered as ours.
    const made = await lstat(join(workspace, "node_modules")).catch(() => undefined);
    notCached = made?.isDirectory()
      ? await linksOutside(join(workspace, "node_modules"))
      : "the install left no node_modules directory";
    if (!notCached) {
      await moveTree(join(workspace, "node_modules"), join(staging, "node_modules"));
      extraEnv = await useEntry(workspace, plan, await publishCacheEntry(root, key, staging));
    }
  } else if (plan.target.kind === "in-place") {
    notCached = `${plan.manager} keeps its environment in the checkout`;
  } else {
    extraEnv = await useEntry(workspace, plan, await publishCacheEntry(root, key, staging));
  }
  if (notCached) await rm(staging, { recursive: true, force: true });
  else await evictCache(root, options.cacheBytes ?? DEFAULT_CACHE_BYTES, [key]);
  const summary: InstallSummary = {
    manager: plan.manager,
    lockfile,
    command,
    source: "fresh",
    seconds: elapsed(),
    network,
    ok: true,
    notCached,
  };
  return {
    ran: true,
    ok: true,
    summary,
    message: `dependencies (${plan.manager}, ${lockfile}) installed with \`${command}\` in ${summary.seconds} s${network ? " with network" : " without network"}${notCached ? `; not cached: ${notCached}` : ""}`,
    env: extraEnv,
  };
}

/** Shows a cache entry to the tests, read-only: node_modules linked into the worktree, or the variables that point a tool at it. */
async function useEntry(workspace: string, plan: InstallPlan, entry: string): Promise<Record<string, string>> {
  switch (plan.target.kind) {
    case "node_modules":
      await symlink(join(entry, "node_modules"), join(workspace, "node_modules"));
      grantDirectory(workspace, join(entry, "node_modules"));
      return {};
    case "python-target":
      grantDirectory(workspace, entry);
      return { PYTHONPATH: join(entry, "site") };
    case "tool-cache":
      grantDirectory(workspace, entry);
      return { [plan.target.variable]: join(entry, plan.target.variable.toLowerCase()), ...plan.target.offline };
    case "in-place":
      return {};
  }
}

/** Where each tool writes its download cache (shared by installs, writable only to them) and its result. */
function toolEnv(plan: InstallPlan, staging: string, toolCache: string): Record<string, string> {
  const quiet = { npm_config_update_notifier: "false", npm_config_audit: "false", npm_config_fund: "false" };
  switch (plan.manager) {
    case "npm":
      return { ...quiet, npm_config_cache: toolCache };
    case "pnpm":
      return { ...quiet, npm_config_store_dir: toolCache };
    case "yarn":
      return { YARN_CACHE_FOLDER: toolCache };
    case "bun":
      return { BUN_INSTALL_CACHE_DIR: toolCache };
    case "pip":
      return { PIP_CACHE_DIR: toolCache, PIP_DISABLE_PIP_VERSION_CHECK: "1" };
    case "uv":
      return { UV_CACHE_DIR: toolCache };
    case "poetry":
      return { POETRY_CACHE_DIR: toolCache, POETRY_VIRTUALENVS_IN_PROJECT: "true" };
    case "go":
    case "cargo":
      return plan.target.kind === "tool-cache"
        ? { [plan.target.variable]: join(staging, plan.target.variable.toLowerCase()) }
        : {};
  }
}

/**
 * A node_modules whose links point outside itself (a `file:` directory dependency is a
 * link to the repository's own folder) is not relocatable: it stays in the worktree.
 */
async function linksOutside(dir: string): Promise<string | undefined> {
  const walk = async (path: string, depth: number): Promise<string | undefined> => {
    for (const name of await readdir(path).catch(() => [] as string[])) {
      const full = join(path, name);
      const info = await lstat(full);
      if (info.isSymbolicLink()) {
        const to = await readlink(full);
        const real = isAbsolute(to) ? to : resolve(dirname(full), to);
        if (real !== dir && !real.startsWith(dir + sep))
          return `node_modules/${relative(dir, full)} links outside node_modules`;
      } else if (info.isDirectory() && depth === 0 && (name.startsWith("@") || name === ".bin")) {
        const found = await walk(full, depth + 1);
        if (found) return found;
      }
    }
    return undefined;
  };
  return walk(dir, 0);
}

/** A rename when the two are on one file system, a copy (links kept as links) otherwise. */
async function moveTree(from: string, to: string): Promise<void> {
  try {
    await rename(from, to);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "EXDEV") throw error;
    await cp(from, to, { recursive: true, verbatimSymlinks: true });
    await rm(from, { recursive: true, force: true });
  }
}

/** The argv as the report shows it: the staging path (under the bot's data dir) written `<cache>`. */
function shown(argv: readonly string[], staging: string): string {
  return argv.map((arg) => (arg.startsWith(staging) ? `<cache>${arg.slice(staging.length)}` : arg)).join(" ");
}

/** The sandbox options for the tests, with the variables that point them at the installed dependencies. */
export function sandboxWithInstall<T extends { env?: Record<string, string> | undefined }>(
  sandbox: T,
  install: InstallResult,
): T {
  if (!install.ran || Object.keys(install.env).length === 0) return sandbox;
  return { ...sandbox, env: mergeEnv(sandbox.env ?? {}, install.env) };
}

/** The repository config with those variables in `test.env`, for code that builds its sandbox from the config (the App's verifiers). */
export function configWithInstall<C extends { test: RepoConfig["test"] }>(config: C, install: InstallResult): C {
  if (!install.ran || Object.keys(install.env).length === 0) return config;
  return { ...config, test: { ...config.test, env: mergeEnv(config.test.env, install.env) } };
}

function mergeEnv(repository: Record<string, string>, installed: Record<string, string>): Record<string, string> {
  const env = { ...repository, ...installed };
  // The repository's own PYTHONPATH (test.env) still applies, after the installed packages.
  if (installed.PYTHONPATH && repository.PYTHONPATH)
    env.PYTHONPATH = `${installed.PYTHONPATH}:${repository.PYTHONPATH}`;
  return env;
}
