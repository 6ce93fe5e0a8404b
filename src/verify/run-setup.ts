// The repository's setup command (`test.setup`, for example `npm ci`), run once in the
// worktree before its tests, in the same sandbox: only the worktree is writable, so what
// it installs must land there (node_modules, a `--target` directory on PYTHONPATH). It
// gets network only when the repository's config says `test.networkDuringSetup: true`.
import { existsSync } from "node:fs";
import { readWorktreeTextSync } from "../workspace/read-worktree-file.ts";
import { join } from "node:path";
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { splitCommand } from "./runners/split-command.ts";
import { runSandboxed, type SandboxOptions } from "./sandbox/run-sandboxed.ts";
import type { RunResult } from "./test-report.ts";

export type SetupResult = { ran: false } | { ran: true; ok: boolean; argv: string[]; run: RunResult; message: string };

export async function runSetup(
  workspace: string,
  test: RepoConfig["test"],
  sandbox: Omit<SandboxOptions, "cwd">,
): Promise<SetupResult> {
  if (!test.setup) return { ran: false };
  const argv = splitCommand(test.setup);
  // The repository asks; the operator decides: with network the setup shares the host's
  // network namespace, and so its loopback services.
  const network = test.networkDuringSetup && process.env.AUTOGEN_ALLOW_SETUP_NETWORK === "1";
  const run = await runSandboxed(argv, { ...sandbox, cwd: workspace, network, maxOutputBytes: 256 * 1024 });
  const ok = run.exitCode === 0 && !run.timedOut && !run.spawnError;
  const seconds = Math.round(run.durationMs / 100) / 10;
  const why = run.spawnError ?? run.limit?.message ?? `exit ${String(run.exitCode)}`;
  const message = ok
    ? `setup \`${test.setup}\` finished in ${seconds} s`
    : `the setup command \`${test.setup}\` failed (${why})${network ? "" : test.networkDuringSetup ? "; it ran without network: the repository asks for it (test.networkDuringSetup), but whoever runs the bot has not allowed it (AUTOGEN_ALLOW_SETUP_NETWORK=1)" : "; it ran without network (set test.networkDuringSetup: true if it downloads packages)"}; its output ends with: ${run.output.slice(-600).trim()}`;
  return { ran: true, ok, argv, run, message };
}

/**
 * Why a test command could not find what it runs, when the reason is dependencies the
 * bot's fresh checkout does not have: a JavaScript project with dependencies and no
 * node_modules. Undefined when that is not the case.
 */
export function missingDependencies(workspace: string, test: RepoConfig["test"]): string | undefined {
  const manifest = join(workspace, "package.json");
  if (!existsSync(manifest) || existsSync(join(workspace, "node_modules"))) return undefined;
  let deps: number;
  try {
    const parsed = JSON.parse(readWorktreeTextSync(workspace, "package.json", { maxBytes: 1024 * 1024 })) as {
      dependencies?: Record<string, string>;
      devDependencies?: Record<string, string>;
    };
    deps = Object.keys(parsed.dependencies ?? {}).length + Object.keys(parsed.devDependencies ?? {}).length;
  } catch {
    return undefined;
  }
  if (deps === 0) return undefined;
  const install = existsSync(join(workspace, "package-lock.json"))
    ? "npm ci"
    : existsSync(join(workspace, "yarn.lock"))
      ? "yarn install --frozen-lockfile"
      : existsSync(join(workspace, "pnpm-lock.yaml"))
        ? "pnpm install --frozen-lockfile"
        : "npm install";
  return test.setup
    ? `package.json lists ${deps} dependencies but node_modules is still missing after the setup command \`${test.setup}\``
    : `package.json lists ${deps} dependencies and the bot's checkout has no node_modules: set \`test.setup: "${install}"\` and \`test.networkDuringSetup: true\` in .github/autogen.yml (and AUTOGEN_ALLOW_SETUP_NETWORK=1 where the bot runs), or commit a lockfile (package-lock.json, pnpm-lock.yaml, yarn.lock, bun.lock), which the bot installs itself`;
}
