// Where a job's candidates are tested (`verify` in the repository config): the
// repository's verification workflow in GitHub Actions when it is installed (`auto`) or
// required (`actions`), the local sandbox otherwise; a fork's code is never dispatched.
// Instrumented runs (coverage, traces) always use the local sandbox: their output is
// files on our side.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import type { CiForge } from "../forge/ci-forge.ts";
import { actionsVerifier, VERIFY_WORKFLOW } from "../ci/actions-verifier.ts";
import { localVerifier, type Verifier } from "../verify/local-verifier.ts";
import { warmRunsEnabled } from "../verify/warm/warm-enabled.ts";
import type { RunWaiters } from "../verify/run-waiters.ts";
import type { TestRunner } from "../verify/runners/test-runner.ts";
import type { GitTarget } from "../forge/publish-commit.ts";
import { branchPublisher } from "./publish-change.ts";
import { dirname } from "node:path";
import { sandboxOptionsFor } from "../verify/sandbox/sandbox-options.ts";

export type VerifierChoice = { verifier: Verifier; probe: Verifier; backend: "actions" | "local"; why: string };

export class VerifierUnavailableError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "VerifierUnavailableError";
  }
}

export type ChooseVerifierArgs = {
  config: RepoConfig;
  ci: CiForge;
  owner: string;
  repo: string;
  defaultBranch: string;
  /** The code under test comes from a fork: never dispatched, never pushed. */
  fork: boolean;
  runner: TestRunner;
  mirror: string;
  /** Where the verification branches are published (through the Git Data API, as the bot). */
  target: GitTarget;
  jobId: number;
  signal: AbortSignal;
  waiters: RunWaiters;
  onRun?: (run: { id: number; url: string; candidates: number }) => void;
  /** How often to poll a run (tests shorten it). */
  pollMs?: number | undefined;
  /** Limit for one Actions run, queueing included (default: the test timeout plus 10 minutes for the runner). */
  actionsTimeoutMs?: number | undefined;
};

export async function chooseVerifier(args: ChooseVerifierArgs): Promise<VerifierChoice> {
  const { config } = args;
  const sandbox = sandboxOptionsFor(config.test, args.signal);
  // The mirror is readable (tests may use git); the rest of the repository cache (other jobs' worktrees) is hidden.
  const local = localVerifier(args.runner, {
    ...sandbox,
    protect: [args.mirror],
    hiddenPaths: [dirname(dirname(args.mirror))],
    warm: warmRunsEnabled(config.test),
  });
  if (config.verify === "local")
    return { verifier: local, probe: local, backend: "local", why: "local sandbox (`verify: local`)" };
  if (args.fork)
    return {
      verifier: local,
      probe: local,
      backend: "local",
      why: "local sandbox (a fork's code is never pushed or dispatched)",
    };
  const installed = await args.ci.workflowInstalled(args.owner, args.repo, VERIFY_WORKFLOW);
  if (!installed) {
    if (config.verify === "actions")
      throw new VerifierUnavailableError(
        `\`verify: actions\` is set but .github/workflows/${VERIFY_WORKFLOW} is not installed (or is disabled) on ${args.defaultBranch}: from an autogen-bot checkout run \`npx autogen-bot init-workflow <your clone> --write\` (docs/actions.md), review and commit it, or set \`verify: local\``,
      );
    return {
      verifier: local,
      probe: local,
      backend: "local",
      why: `local sandbox (no ${VERIFY_WORKFLOW} workflow installed)`,
    };
  }
  const publish = branchPublisher(args.mirror, args.target);
  // A job resumed after a crash: its earlier verification branches are gone before it starts.
  await publish.sweep(`autogen/verify-job-${args.jobId}-`);
  const verifier = actionsVerifier({
    ci: args.ci,
    owner: args.owner,
    repo: args.repo,
    dispatchRef: args.defaultBranch,
    publish,
    correlation: `job-${args.jobId}`,
    timeoutMs: args.actionsTimeoutMs ?? sandbox.timeoutMs + 10 * 60_000,
    signal: args.signal,
    waiters: args.waiters,
    parseConsole: args.runner.parseConsole,
    ...(args.onRun ? { onRun: args.onRun } : {}),
    ...(args.pollMs ? { pollMs: args.pollMs, maxPollMs: args.pollMs * 4 } : {}),
  });
  return { verifier, probe: local, backend: "actions", why: `GitHub Actions (${VERIFY_WORKFLOW})` };
}
