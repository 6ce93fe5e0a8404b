// Which package manager a repository installs its dependencies with, read from the
// lockfiles it commits, and the exact argv that installs them as that repository does.
// The repository is hostile: only file names we chose (or that match a fixed, option-free
// pattern) reach an argv, always as the value of an option or after the command, never
// a flag position; lockfile contents only ever feed the cache key.
import { existsSync, lstatSync, readdirSync } from "node:fs";
import { tryReadWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { join } from "node:path";

export type PackageManager = "npm" | "pnpm" | "yarn" | "bun" | "pip" | "uv" | "poetry" | "go" | "cargo";

/**
 * Where an install's result lives, which decides how it is cached and shown to tests:
 * - `node_modules`: the install writes the worktree's node_modules; cached, it is linked in read-only.
 * - `python-target`: `pip install --target <dir>`; tests get the dir on PYTHONPATH and its bin/ on PATH.
 * - `tool-cache`: a module cache the tool reads through an environment variable (GOMODCACHE, CARGO_HOME).
 * - `in-place`: the tool manages its own environment in the worktree (uv's and poetry's .venv); not cached.
 */
export type InstallTarget =
  | { kind: "node_modules" }
  | { kind: "python-target" }
  | { kind: "tool-cache"; variable: "GOMODCACHE" | "CARGO_HOME"; offline: Record<string, string> }
  | { kind: "in-place" };

export type InstallPlan = {
  manager: PackageManager;
  /** The files whose bytes key the cache (lockfile first), as names relative to the workspace. */
  keyFiles: string[];
  /** The install with network. `{target}` stands for the cache directory the install writes (python-target only). */
  argv: string[];
  /** The same install from local sources only, or undefined when the tool has no offline mode. */
  offlineArgv: string[] | undefined;
  target: InstallTarget;
};

/** `requirements.txt`, `requirements-dev.txt`, `requirements/test.txt` is not taken: one level, fixed characters, cannot start with `-`. */
const REQUIREMENTS = /^requirements[A-Za-z0-9_.-]{0,60}\.txt$/;
/** The argument the bot replaces with the install target (a directory in the install cache) before running the argv. */
export const INSTALL_TARGET_ARG = "{target}";

/** The install plan for a workspace, or undefined when it commits no lockfile we know. The first match wins, JavaScript before Python before Go and Rust. */
export function detectPackageManager(workspace: string): InstallPlan | undefined {
  const has = (name: string) => isRegularFile(join(workspace, name));
  const withManifest = (lockfile: string, manifest: string) => (has(manifest) ? [lockfile, manifest] : [lockfile]);

  for (const lockfile of ["package-lock.json", "npm-shrinkwrap.json"]) {
    if (has(lockfile))
      return {
        manager: "npm",
        keyFiles: withManifest(lockfile, "package.json"),
        argv: ["npm", "ci"],
        offlineArgv: ["npm", "ci", "--offline"],
        target: { kind: "node_modules" },
      };
  }
  if (has("pnpm-lock.yaml")) {
    return {
      manager: "pnpm",
      keyFiles: withManifest("pnpm-lock.yaml", "package.json"),
      argv: ["pnpm", "install", "--frozen-lockfile"],
      offlineArgv: ["pnpm", "install", "--frozen-lockfile", "--offline"],
      target: { kind: "node_modules" },
    };
  }
  if (has("yarn.lock")) {
    // Berry (yarn 2+) writes a `__metadata` block and reads .yarnrc.yml; classic has neither.
    const berry = has(".yarnrc.yml") || readHead(workspace, "yarn.lock").includes("__metadata:");
    return berry
      ? {
          manager: "yarn",
          keyFiles: withManifest("yarn.lock", "package.json"),
          argv: ["yarn", "install", "--immutable"],
          offlineArgv: undefined,
          target: { kind: "node_modules" },
        }
      : {
          manager: "yarn",
          keyFiles: withManifest("yarn.lock", "package.json"),
          argv: ["yarn", "install", "--frozen-lockfile"],
          offlineArgv: ["yarn", "install", "--frozen-lockfile", "--offline"],
          target: { kind: "node_modules" },
        };
  }
  for (const lockfile of ["bun.lock", "bun.lockb"]) {
    if (has(lockfile))
      return {
        manager: "bun",
        keyFiles: withManifest(lockfile, "package.json"),
        argv: ["bun", "install", "--frozen-lockfile"],
        offlineArgv: undefined,
        target: { kind: "node_modules" },
      };
  }
  if (has("uv.lock"))
    return {
      manager: "uv",
      keyFiles: withManifest("uv.lock", "pyproject.toml"),
      argv: ["uv", "sync", "--frozen"],
      offlineArgv: ["uv", "sync", "--frozen", "--offline"],
      target: { kind: "in-place" },
    };
  if (has("poetry.lock"))
    return {
      manager: "poetry",
      keyFiles: withManifest("poetry.lock", "pyproject.toml"),
      argv: ["poetry", "install", "--no-interaction"],
      offlineArgv: undefined,
      target: { kind: "in-place" },
    };
  const requirements = listRequirements(workspace);
  if (requirements.length > 0) {
    const files = requirements.flatMap((name) => ["-r", name]);
    const base = [
      "python3",
      "-m",
      "pip",
      "install",
      "--disable-pip-version-check",
      "--no-input",
      "--target",
      INSTALL_TARGET_ARG,
    ];
    return {
      manager: "pip",
      keyFiles: requirements,
      argv: [...base, ...files],
      offlineArgv: [...base, "--no-index", ...files],
      target: { kind: "python-target" },
    };
  }
  if (has("go.sum")) {
    return {
      manager: "go",
      keyFiles: withManifest("go.sum", "go.mod"),
      argv: ["go", "mod", "download"],
      offlineArgv: undefined,
      target: { kind: "tool-cache", variable: "GOMODCACHE", offline: { GOFLAGS: "-mod=mod", GOPROXY: "off" } },
    };
  }
  if (has("Cargo.lock")) {
    return {
      manager: "cargo",
      keyFiles: withManifest("Cargo.lock", "Cargo.toml"),
      argv: ["cargo", "fetch", "--locked"],
      offlineArgv: ["cargo", "fetch", "--locked", "--offline"],
      target: { kind: "tool-cache", variable: "CARGO_HOME", offline: { CARGO_NET_OFFLINE: "true" } },
    };
  }
  return undefined;
}

/** requirements*.txt at the top of the workspace, sorted, regular files only (a link could point anywhere). */
function listRequirements(workspace: string): string[] {
  let names: string[];
  try {
    names = readdirSync(workspace);
  } catch {
    return [];
  }
  return names.filter((name) => REQUIREMENTS.test(name) && isRegularFile(join(workspace, name))).sort();
}

function isRegularFile(path: string): boolean {
  if (!existsSync(path)) return false;
  try {
    return lstatSync(path).isFile();
  } catch {
    return false;
  }
}

function readHead(workspace: string, name: string): string {
  return tryReadWorktreeTextSync(workspace, name, { maxBytes: 4096, overLimit: "truncate" }) ?? "";
}
