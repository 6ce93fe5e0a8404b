// The `Verifier` port's GitHub Actions backend: each candidate (the workspace as it is
// on disk) is committed and pushed to a bot branch, the repository's verification
// workflow is dispatched (from the default branch, so a candidate can never change the
// workflow that tests it), the run is found (from the dispatch answer, else by the
// correlation id in its run-name), awaited (webhook wake-up or polling with backoff, up
// to a timeout, after which it is cancelled), and its logs and JUnit artifact read into
// a TestReport. Calls that arrive together with the same selection share one dispatch:
// one matrix job per candidate.
import { randomBytes } from "node:crypto";
import type { CiForge, WorkflowRun } from "../forge/ci-forge.ts";
import { artifactTests, jobEvidence } from "./run-evidence.ts";
import { snapshotCommit } from "../workspace/snapshot-commit.ts";
import type { Verifier } from "../verify/local-verifier.ts";
import { safeIds, type TestSelection } from "../verify/runners/test-runner.ts";
import { RunWaiters } from "../verify/run-waiters.ts";
import type { TestCaseResult, TestReport } from "../verify/test-report.ts";

export const VERIFY_WORKFLOW = "autogen-verify.yml";

export type ActionsVerifierOptions = {
  ci: CiForge;
  owner: string;
  repo: string;
  /** The branch whose workflow file is dispatched (the default branch). */
  dispatchRef: string;
  workflow?: string;
  /** Pushes a commit to a bot branch (and `remove` deletes it afterwards). */
  publish: { push(sha: string, branch: string): Promise<void>; remove(branch: string): Promise<void> };
  /** Prefix of branch names and correlation ids (e.g. `job-12`). */
  correlation: string;
  timeoutMs: number;
  pollMs?: number;
  maxPollMs?: number;
  /** Runs of one selection that arrive within this window go in one dispatch (default 25 ms). */
  batchWindowMs?: number;
  /** How long a batch announced by `expectBatch` waits for its last run before it goes without it (default 10 s). */
  batchHoldMs?: number;
  waiters?: RunWaiters;
  signal?: AbortSignal | undefined;
  parseConsole?: ((output: string) => TestCaseResult[]) | undefined;
  onRun?: (run: { id: number; url: string; candidates: number }) => void;
};

export class ActionsVerifierError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ActionsVerifierError";
  }
}

/** The run was not found, or did not finish in time (it is cancelled): no result, the job stops. */
export class VerificationTimeout extends ActionsVerifierError {
  constructor(message: string) {
    super(message);
    this.name = "VerificationTimeout";
  }
}

/** Test ids travel to the workflow as one space-separated input: none may hide an option or a separator. */
export function workflowTestIds(ids: string[]): string {
  for (const id of safeIds(ids))
    if (/\s/.test(id))
      throw new ActionsVerifierError(
        `test id ${JSON.stringify(id)} contains whitespace and cannot be passed to the verification workflow`,
      );
  return ids.join(" ");
}

type Pending = { workspace: string; resolve: (r: TestReport) => void; reject: (e: unknown) => void };
/** Runs of one selection waiting to be dispatched together; `size`: how many were announced (1: none). */
type Batch = { items: Pending[]; size: number; send: () => void };

export function actionsVerifier(options: ActionsVerifierOptions): Verifier {
  const workflow = options.workflow ?? VERIFY_WORKFLOW;
  const waiters = options.waiters ?? new RunWaiters();
  const batches = new Map<string, Batch>();
  /** The size `expectBatch` announced for the next batch. */
  let announced = 1;
  let branchCounter = 0;
  const { ci, owner, repo } = options;

  const sleep = (runId: number | undefined, ms: number) => waiters.sleep(runId, ms, options.signal);
  const checkAborted = () => {
    if (options.signal?.aborted)
      throw options.signal.reason instanceof Error ? options.signal.reason : new ActionsVerifierError("cancelled");
  };

  async function findRun(correlationId: string, since: number, deadline: number): Promise<WorkflowRun | undefined> {
    let wait = options.pollMs ?? 2000;
    while (Date.now() < deadline) {
      checkAborted();
      const created = `>=${new Date(since - 60_000).toISOString().replace(/\.\d+Z$/, "Z")}`;
      const runs = await ci.workflowRuns(owner, repo, { workflow, event: "workflow_dispatch", created });
      const run = runs.find((r) => r.displayTitle.split(/\s+/).includes(correlationId));
      if (run) return run;
      await sleep(undefined, Math.min(wait, deadline - Date.now()));
      wait = Math.min(wait * 2, options.maxPollMs ?? 30_000);
    }
    return undefined;
  }

  async function awaitCompletion(runId: number, deadline: number): Promise<WorkflowRun | undefined> {
    let wait = options.pollMs ?? 2000;
    for (;;) {
      checkAborted();
      const run = await ci.workflowRun(owner, repo, runId);
      if (run.status === "completed") return run;
      if (Date.now() >= deadline) return undefined;
      await sleep(runId, Math.min(wait, Math.max(0, deadline - Date.now())));
      wait = Math.min(wait * 2, options.maxPollMs ?? 30_000);
    }
  }

  async function runBatch(selection: TestSelection, items: Pending[]): Promise<TestReport[]> {
    const branches: string[] = [];
    try {
      for (const item of items) {
        const sha = await snapshotCommit(item.workspace, "autogen-bot: candidate under verification");
        const branch = `autogen/verify-${options.correlation}-${++branchCounter}`;
        await options.publish.push(sha, branch);
        branches.push(branch);
      }
      const correlationId = `${options.correlation}-${randomBytes(4).toString("hex")}`;
      const started = Date.now();
      const deadline = started + options.timeoutMs;
      checkAborted();
      const tests = selection.kind === "all" ? "" : workflowTestIds(selection.ids);
      const { runId } = await ci.dispatch(owner, repo, workflow, options.dispatchRef, {
        refs: JSON.stringify(branches),
        tests,
        correlation_id: correlationId,
      });
      const run =
        runId !== undefined
          ? await ci.workflowRun(owner, repo, runId)
          : await findRun(correlationId, started, deadline);
      if (!run)
        throw new VerificationTimeout(
          `the verification run (correlation id ${correlationId}) was not found within ${Math.round(options.timeoutMs / 1000)} s of dispatching it`,
        );
      options.onRun?.({ id: run.id, url: run.htmlUrl, candidates: items.length });
      let done: WorkflowRun | undefined;
      try {
        done = await awaitCompletion(run.id, deadline);
      } catch (error) {
        await ci.cancelRun(owner, repo, run.id).catch(() => undefined);
        throw error;
      }
      if (!done) {
        await ci.cancelRun(owner, repo, run.id).catch(() => undefined);
        throw new VerificationTimeout(
          `the verification run ${run.htmlUrl} did not complete within ${Math.round(options.timeoutMs / 1000)} s; it was cancelled`,
        );
      }
      const jobs = await ci.jobs(owner, repo, done.id);
      return await Promise.all(
        branches.map(async (branch, index): Promise<TestReport> => {
          const job = jobs.find((j) => j.name.includes(`(${branch})`)) ?? (jobs.length === 1 ? jobs[0] : undefined);
          const evidence = job ? await jobEvidence(ci, owner, repo, job, 4 * 1024 * 1024) : undefined;
          const name = new RegExp(`^autogen-junit-${correlationId}-${index}$`);
          const fromArtifact = await artifactTests(ci, owner, repo, done.id, name, 64 * 1024 * 1024);
          const output = evidence?.log ?? `no job for ${branch} in run ${done.htmlUrl}`;
          const fromLog = fromArtifact.tests.length > 0 ? [] : (options.parseConsole?.(output) ?? []);
          const conclusion = job?.conclusion ?? done.conclusion;
          return {
            run: {
              argv: ["github-actions", workflow, `run ${done.id}`, branch],
              exitCode: conclusion === "success" ? 0 : 1,
              signal: null,
              timedOut: conclusion === "timed_out",
              durationMs: Date.now() - started,
              output: output.slice(-1_000_000),
              outputBytes: output.length,
              outputTruncated: evidence?.logTruncated ?? false,
              isolation: "actions",
            },
            tests: fromArtifact.tests.length > 0 ? fromArtifact.tests : fromLog,
            source: fromArtifact.tests.length > 0 ? "junit" : fromLog.length > 0 ? "console" : "none",
          };
        }),
      );
    } finally {
      for (const branch of branches) await options.publish.remove(branch).catch(() => undefined);
    }
  }

  return {
    expectBatch(size) {
      announced = Math.max(1, Math.floor(size));
    },
    run(workspace, selection, extraEnv) {
      if (extraEnv && Object.keys(extraEnv).length > 0)
        return Promise.reject(
          new ActionsVerifierError(
            "the Actions verifier runs the repository's workflow as it is; instrumented runs (coverage, traces) go to the local sandbox",
          ),
        );
      return new Promise<TestReport>((resolve, reject) => {
        const key = JSON.stringify(selection);
        const item = { workspace, resolve, reject };
        const waiting = batches.get(key);
        if (waiting) {
          waiting.items.push(item);
          if (waiting.items.length >= waiting.size) waiting.send();
          return;
        }
        // An announced batch waits for its last run (or its hold time); otherwise runs that come within the window join.
        const size = announced;
        announced = 1;
        const batch: Batch = {
          items: [item],
          size,
          send: () => {
            clearTimeout(timer);
            if (batches.get(key) !== batch) return;
            batches.delete(key);
            const items = batch.items;
            runBatch(selection, items).then(
              (reports) => items.forEach((it, i) => it.resolve(reports[i] as TestReport)),
              (error: unknown) => items.forEach((it) => it.reject(error)),
            );
          },
        };
        batches.set(key, batch);
        const timer = setTimeout(
          batch.send,
          size > 1 ? (options.batchHoldMs ?? 10_000) : (options.batchWindowMs ?? 25),
        );
      });
    },
  };
}
