// The red build's repair is the one job pipeline, through the App's ports: the head is
// already installed and set up in both checkouts, the verifier chosen, and the visible tests
// are the failures the pull request caused (the whole suite stays the regression gate).
import { chooseStrategy, taskSandbox } from "../engine/build-task.ts";
import type { Outcome } from "../engine/task.ts";
import { runJobPipeline } from "../pipeline/run-job-pipeline.ts";
import { configWithInstall } from "../verify/install/run-install.ts";
import { JobCancelled } from "./end-job.ts";
import { guardedLlm } from "./guarded-llm.ts";
import { repairProgress } from "./job-progress.ts";
import type { Checkouts } from "./red-build-attribution.ts";
import type { RedBuild } from "./red-build.ts";

export async function repairRedBuild(
  b: RedBuild,
  { install, choice, mergeBase }: Checkouts,
  caused: string[],
  ensureCurrent: () => Promise<void>,
): Promise<Outcome> {
  const { job, deps, pull, config, signal } = b;
  const description = [
    `The pull request #${job.number} "${pull.title}" broke these tests (they pass at the merge base ${mergeBase.slice(0, 7)}): ${caused.join(", ")}.`,
    "Change the code so they pass again, keeping what the pull request set out to do.",
    pull.body ? `The pull request's description:\n${pull.body}` : "",
    `What CI showed:\n${b.evidence.map((e) => e.digest).join("\n\n")}`,
    job.hint ? `Hint from ${job.requester}: ${job.hint}` : "",
  ]
    .filter(Boolean)
    .join("\n\n");
  const scope = { installation: String(job.installationId), repository: `${job.owner}/${job.repo}` };
  const result = await runJobPipeline(
    {
      workspace: b.head.path,
      // Before the install's variables: the pipeline adds them.
      config,
      trigger: { kind: "failing-tests", description, tests: caused },
      runner: b.runner,
      sandboxFor: (c) => ({ ...taskSandbox(c, signal), ...b.hidden }),
      // Installed and set up before the attribution, in both checkouts.
      setup: false,
      baseline: false,
      signal,
    },
    {
      install: async () => install,
      verifier: async () => ({
        verifier: choice.verifier,
        probe: choice.probe,
        parallelism: choice.backend === "actions" ? 4 : 1,
      }),
      llm: () => guardedLlm(deps.llmFor?.(configWithInstall(config, install), job, signal), ensureCurrent),
      recall: () => deps.memory?.recall(scope, description) ?? [],
      strategy: ({ llm, memory }) => {
        try {
          return chooseStrategy({ config, llm, memory, planOnly: job.checkpoint.planOnly === true });
        } catch (error) {
          throw new JobCancelled((error as Error).message);
        }
      },
      progress: repairProgress(job, deps, b.status),
    },
  );
  return result.outcome;
}
