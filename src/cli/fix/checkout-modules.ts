// The CLI's install port. A fresh worktree of HEAD has no node_modules (never committed): the
// checkout's are linked in, read-only to the tests, when they were installed from the same
// lockfile; otherwise HEAD's dependencies are installed in the sandbox.
import { existsSync } from "node:fs";
import { lstat, symlink } from "node:fs/promises";
import { join } from "node:path";
import type { RepoConfig } from "../../config/repo-config-schema.ts";
import type { TaskSandbox } from "../../pipeline/pipeline-ports.ts";
import { detectPackageManager, type PackageManager } from "../../verify/install/detect-package-manager.ts";
import { cliInstallCache } from "../../verify/install/install-cache.ts";
import { installDependencies, type InstallResult, type InstallSummary } from "../../verify/install/run-install.ts";
import { grantDirectory } from "../../verify/sandbox/workspace-grants.ts";
import { readWorktreeBytes } from "../../workspace/read-worktree-file.ts";

type CheckoutModules =
  { linked: true; manager: PackageManager; lockfile: string | undefined } | { linked: false; differs?: string };

/** Lockfiles of large monorepos run to tens of MiB; past this one is not compared (no link). */
const LOCKFILE_LIMIT = 64 * 1024 * 1024;

/**
 * Links the checkout's node_modules into the worktree when the worktree has none and the
 * checkout's lockfile is byte for byte the commit's (a project without a lockfile: always);
 * the sandbox shows it read-only.
 */
async function linkCheckoutModules(repo: string, worktree: string): Promise<CheckoutModules> {
  const modules = join(repo, "node_modules");
  const stat = await lstat(modules).catch(() => undefined);
  if (!stat?.isDirectory() || existsSync(join(worktree, "node_modules"))) return { linked: false };
  const plan = detectPackageManager(worktree);
  const lockfile = plan?.target.kind === "node_modules" ? plan.keyFiles[0] : undefined;
  if (lockfile) {
    const ours = await readWorktreeBytes(repo, lockfile, { maxBytes: LOCKFILE_LIMIT }).catch(() => undefined);
    const theirs = await readWorktreeBytes(worktree, lockfile, { maxBytes: LOCKFILE_LIMIT }).catch(() => undefined);
    if (!ours || !theirs || !ours.equals(theirs)) return { linked: false, differs: lockfile };
  }
  await symlink(modules, join(worktree, "node_modules"));
  grantDirectory(worktree, modules);
  return { linked: true, manager: plan?.manager ?? "npm", lockfile };
}

export type CheckoutInstall = {
  install: (config: RepoConfig, sandbox: TaskSandbox) => Promise<InstallResult>;
  /** The checkout's dependencies when they were linked (the report names them), else undefined. */
  linked: () => InstallSummary | undefined;
};

/** The install port for a worktree of `repo`; notes go to `log`. */
export function checkoutInstall(
  repo: string,
  worktree: string,
  env: NodeJS.ProcessEnv,
  log: (text: string) => void,
): CheckoutInstall {
  let linked: InstallSummary | undefined;
  return {
    linked: () => linked,
    install: async (config, sandbox) => {
      const checkout = await linkCheckoutModules(repo, worktree);
      if (checkout.linked) {
        log("note: using node_modules from your checkout (read-only to the tests)\n");
        const { manager, lockfile } = checkout;
        if (lockfile) {
          linked = { manager, lockfile, command: "", source: "checkout", seconds: 0, network: false, ok: true };
        }
      } else if (checkout.differs) {
        log(`note: not using your checkout's node_modules: its ${checkout.differs} differs from the commit's\n`);
      }
      // Scoped to this checkout: another repository on this machine with the same lockfile
      // ran its own install scripts.
      const cacheRoot = cliInstallCache(env, repo);
      const install = await installDependencies(worktree, config.test, sandbox, { env, cacheRoot });
      if (install.ran) {
        log(
          install.ok ? `${install.message}\n` : `note: ${install.message}; continuing with what is already installed\n`,
        );
      }
      return install;
    },
  };
}
