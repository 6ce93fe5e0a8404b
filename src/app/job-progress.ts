// The App's progress port for the job pipeline: each stage becomes a step of the status
// comment, the engine's events are checkpointed (a restarted job knows where it stopped),
// and a long silent phase puts a line under the steps: the phase, what runs, for how long.
import type { Job } from "../jobs/job-store.ts";
import type { ProgressEvent } from "../engine/task.ts";
import type { Heartbeat, PipelineEvent, PipelineProgress } from "../pipeline/pipeline-ports.ts";
import { failingTests } from "../verify/test-report.ts";
import { recordFailureSites } from "./check-run-reporter.ts";
import type { JobDeps } from "./job-deps.ts";
import type { StatusReporter } from "./status-reporter.ts";

type Deps = Pick<JobDeps, "store" | "log">;
type StageEvent = Extract<ProgressEvent, { kind: "stage" }>;

/** An issue job: install, setup, baseline under "Tests and localisation", then plan, attempts, regression gate. */
export function issueJobProgress(
  job: Job,
  deps: Deps,
  status: StatusReporter,
  worktree: { path: string; sha: string },
): PipelineProgress {
  const localisation = "Tests and localisation";
  const stage = async (event: PipelineEvent) => {
    switch (event.stage) {
      case "install": {
        if (!event.install.ran) return;
        const { ok, message } = event.install;
        status.set(localisation, "running", ok ? message : `continuing without dependencies: ${message}`);
        return;
      }
      case "setup":
        if (event.setup.ran && !event.setup.ok) status.set(localisation, "failed", event.setup.message);
        return;
      case "baseline": {
        const failing = failingTests(event.baseline);
        await recordFailureSites(deps.store, job, [event.baseline], worktree.path);
        const passed = event.baseline.tests.length - failing.length;
        const on = worktree.sha.slice(0, 7);
        status.set(localisation, "done", `${event.runner.name}: ${passed} passed, ${failing.length} failed on ${on}`);
        return;
      }
      case "strategy":
        status.set("Plan", "running");
        return;
      case "run": {
        const { outcome } = event;
        const { verified, verification } = outcome.plan;
        const checked = `${verified ? "verified" : "not verified"} on ${verification?.length ?? 0} test(s)`;
        if (outcome.plan.steps) status.set("Plan", verified ? "done" : "failed", checked);
        status.set("Attempts", outcome.status === "fixed" ? "done" : "failed", `${outcome.attempts.length} attempt(s)`);
        return;
      }
      case "post-checks": {
        const after = event.outcome.evidence.regressionAfter;
        const detail = after ? `${after.passed} passed, ${after.failed} failed` : undefined;
        status.set("Regression gate", event.passed ? "done" : "failed", detail);
        return;
      }
      default:
        return;
    }
  };
  const planDetail = (event: StageEvent) =>
    event.stage === "plan" ? "written" : `${event.stage}${event.detail ? ` (${event.detail})` : ""}`;
  return { stage, engine: engineProgress(job, deps, status, planDetail), heartbeat: heartbeatOn(status) };
}

/** The repair of a red build: its evidence and attribution were shown already; the pipeline shows the engine. */
export function repairProgress(job: Job, deps: Deps, status: StatusReporter): PipelineProgress {
  return {
    stage: (event) => {
      if (event.stage === "strategy") status.set("Plan", "running");
    },
    engine: engineProgress(job, deps, status, (event) => event.stage),
    heartbeat: heartbeatOn(status),
  };
}

function engineProgress(job: Job, deps: Deps, status: StatusReporter, planDetail: (event: StageEvent) => string) {
  return (event: ProgressEvent) => {
    // The job's record follows the engine (an interrupted engine run restarts from its beginning).
    const checkpoint = event.kind === "stage" ? { stage: event.stage } : { stage: "attempt", attempt: event.index };
    void deps.store.checkpoint(job.id, checkpoint).catch((error: unknown) => {
      deps.log.warn({ jobId: job.id, err: (error as Error).message }, "checkpoint not saved");
    });
    if (event.kind === "stage") {
      status.set("Plan", "done", planDetail(event));
    } else {
      status.set("Attempts", "running", `attempt ${event.index}: ${event.passed} passed, ${event.failed} failed`);
    }
  };
}

/** A beat is a line under the steps (the next update of a step replaces it); the steps stay as they are. */
function heartbeatOn(status: StatusReporter) {
  return (beat: Heartbeat) => status.workingOn(heartbeatLine(beat));
}

export function heartbeatLine(beat: Heartbeat): string {
  return `Working (${beat.stage}): ${beat.doing}, ${Math.round(beat.elapsedMs / 1000)} s so far.`;
}
