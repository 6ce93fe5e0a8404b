// Which of the red build's failures the pull request caused: the head and the merge base
// installed and set up, the failing tests (CI's, or a run at the head when CI named none)
// rerun in both, each judged caused, pre-existing or flaky. A job resumed after a restart
// keeps the attribution it already paid for.
import type { RepoConfig } from "../config/repo-config-schema.ts";
import { taskSandbox } from "../engine/build-task.ts";
import { evidenceDetails, explainAttribution } from "../report/ci-explanation.ts";
import { attributeFailures, type AttributionResult } from "../verify/attribution.ts";
import { appInstallCache } from "../verify/install/install-cache.ts";
import { configWithInstall, installDependencies, type InstallResult } from "../verify/install/run-install.ts";
import { brokenRunReason } from "../verify/load-failure.ts";
import { runSetup } from "../verify/run-setup.ts";
import { failingTests } from "../verify/test-report.ts";
import type { Worktree } from "../workspace/repo-cache.ts";
import { checkpointAttribution } from "./checkpoint-results.ts";
import type { VerifierChoice } from "./choose-verifier.ts";
import { jobVerifier } from "./job-verifier.ts";
import { gitTarget } from "./publish-change.ts";
import { brokenTestsStop } from "./red-build-evidence.ts";
import type { RedBuild, Stopped } from "./red-build.ts";

export type Checkouts = {
  /** The head's install (the repair's pipeline reuses it). */
  install: InstallResult;
  /** The config with the install's variables. */
  config: RepoConfig;
  choice: VerifierChoice;
  mergeBase: string;
  base: Worktree;
};

/** The head's dependencies and the verifier, then the merge base checked out, and the setup in both checkouts. */
export async function prepareCheckouts(b: RedBuild, keep: (tree: Worktree) => void): Promise<Stopped | Checkouts> {
  const { job, deps, status, signal, head, hidden } = b;
  // A fork's pull request installs into a cache of its own: its install scripts are its author's, and must not plant anything the repository's later jobs would run.
  const repositoryScope = `${String(job.installationId)}/${job.owner}/${job.repo}`;
  const installCache = {
    cacheRoot: appInstallCache(
      deps.cacheRoot,
      b.pull.fork ? `${repositoryScope}/fork-pull/${String(b.pull.number)}` : repositoryScope,
    ),
  };
  // Before any local run: the verifier's sandbox points at them (cached by lockfile, so the base usually reuses them).
  const install = await installDependencies(
    head.path,
    b.config.test,
    { ...taskSandbox(b.config, signal), ...hidden },
    installCache,
  );
  const config = configWithInstall(b.config, install);
  const choice = await jobVerifier(
    deps,
    job,
    status,
    config,
    {
      ci: b.ci,
      defaultBranch: b.defaultBranch,
      mirror: b.mirror,
      target: await gitTarget(b.forge, job, deps.botIdentity),
      runner: b.runner,
      fork: b.pull.fork,
    },
    signal,
  );

  status.set("Attribution", "running");
  const mergeBase = (
    await b.cache.run(b.mirror, ["merge-base", "--end-of-options", b.pull.baseSha, b.headSha], "find the merge base")
  ).trim();
  const base = await b.cache.worktree(b.mirror, mergeBase, `job-${job.id}-base`);
  keep(base);
  // The repository's setup (for example `npm ci`) in both checkouts, before any local run
  // (attribution, and the coverage runs that stay local even when Actions verifies).
  const baseInstall = await installDependencies(
    base.path,
    b.config.test,
    { ...taskSandbox(b.config, signal), ...hidden },
    { cacheRoot: appInstallCache(deps.cacheRoot, repositoryScope) },
  );
  if (baseInstall.ran && !baseInstall.ok)
    status.set(
      "Attribution",
      "running",
      `the merge base's dependencies did not install: ${baseInstall.message.slice(0, 300)}`,
    );
  for (const tree of [head, base]) {
    const setup = await runSetup(tree.path, config.test, { ...taskSandbox(config, signal), ...hidden });
    if (setup.ran && !setup.ok) {
      status.set("Attribution", "failed", "the setup command failed");
      const message = `autogen-bot could not prepare the checkout at \`${tree.sha.slice(0, 7)}\`: ${setup.message}`;
      return { stop: { message, state: "failed", error: setup.message } };
    }
  }
  return { install, config, choice, mergeBase, base };
}

export type Attributed = { attribution: AttributionResult; caused: string[] };

/** The failing tests rerun at the merge base and the head; a stop when none is the pull request's. */
export async function attributeRedBuild(
  b: RedBuild,
  { choice, config, mergeBase, base }: Checkouts,
  failingInCi: string[],
): Promise<Stopped | Attributed> {
  const { job, status, head, evidence } = b;
  let failing = failingInCi;
  if (failing.length === 0) {
    // No per-test results in CI: find the failures by running the suite at the head.
    const atHead = await choice.verifier.run(head.path, { kind: "all" });
    const broken = brokenRunReason(atHead, head.path);
    if (broken)
      return { stop: brokenTestsStop(status, broken, `the suite run at the head here, ${choice.why}`, evidence) };
    failing = failingTests(atHead).map((t) => t.id);
  }
  if (failing.length === 0) {
    status.set("Attribution", "failed", "no failing test reproduced");
    const message = `The failing CI job did not fail in tests autogen-bot could run (${choice.why}), so it made no change.\n\n<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`;
    return { stop: { message, state: "done" } };
  }
  const attribution =
    checkpointAttribution(job.checkpoint) ??
    (await attributeFailures(
      choice.verifier,
      { base: base.path, candidate: head.path },
      { kind: "tests", ids: failing },
      config.test.reruns,
      { parallel: choice.backend === "actions" },
    ));
  await b.deps.store.checkpoint(job.id, { attribution });
  if (!attribution.tests.some((t) => failing.includes(t.id))) {
    // The ids CI reported are not tests the verifier here can select (another runner, renamed tests).
    status.set("Attribution", "failed", "the failing tests could not be run");
    const named = failing
      .slice(0, 10)
      .map((id) => `\`${id}\``)
      .join(", ");
    const message = `The tests that failed in CI (${named}) could not be run by ${choice.why} at the merge base or the head, so autogen-bot cannot tell whether this pull request caused them, and made no change. Setting \`test.command\` in \`.github/autogen.yml\` to the command CI runs may help.\n\n<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`;
    return { stop: { message, state: "done" } };
  }
  const caused = attribution.tests.filter((t) => t.verdict === "caused-by-change").map((t) => t.id);
  const c = attribution.counts;
  status.set(
    "Attribution",
    "done",
    `${c["caused-by-change"]} caused by the change, ${c["pre-existing"]} pre-existing, ${c.flaky} flaky, ${c.passing + c.fixed} not reproduced`,
  );
  if (caused.length === 0) {
    const message = explainAttribution(
      attribution,
      { base: mergeBase, head: b.headSha, verifier: choice.why },
      evidence,
    );
    return { stop: { message, state: "done" } };
  }
  return { attribution, caused };
}
