// Evidence from a failed GitHub Actions run: its failing jobs and steps, their logs
// (timestamps stripped, size capped), the annotations of each job's check run, and the
// JUnit reports uploaded as artifacts. All of it becomes one TestReport (from the
// artifacts, else from the logs through the runner's console parser) and a digest.
import type { CiForge, WorkflowJob, WorkflowRun, Annotation } from "../forge/ci-forge.ts";
import { digestLog } from "../verify/digest/digest-log.ts";
import { digestReport } from "../verify/digest/digest-report.ts";
import { failingTests, type TestCaseResult, type TestReport } from "../verify/test-report.ts";
import { reportsFromZip } from "./artifact-reports.ts";
import { findPassingRun, passingLogOf, type PassingLog } from "./passing-log.ts";
import { recogniseInfraFailure, type InfraFailure } from "./infra-failure.ts";
import { cleanJobLog, errorLines } from "./job-log.ts";

export type JobEvidence = {
  id: number;
  name: string;
  url: string;
  conclusion: string | null;
  failedSteps: string[];
  annotations: Annotation[];
  log: string;
  logTruncated: boolean;
  errors: string[];
  infra?: InfraFailure | undefined;
  /** The log of the same job in the last green run on the base branch, when one was found. */
  passing?: PassingLog | undefined;
};

export type RunEvidence = {
  run: WorkflowRun;
  jobs: JobEvidence[];
  report: TestReport;
  /** Where the per-test results came from. */
  testsFrom: "artifact" | "log" | "none";
  artifactFiles: string[];
  problems: string[];
  digest: string;
  /** Set when the failure is the CI machinery's and no test failed. */
  infra?: InfraFailure | undefined;
};

export type EvidenceOptions = {
  /** Console parser for logs when no report was uploaded (the repository's runner). */
  parseConsole?: ((output: string) => TestCaseResult[]) | undefined;
  maxLogBytes?: number;
  maxArtifactBytes?: number;
  /** Which artifacts hold test reports (default: names mentioning junit, test or report). */
  artifactName?: RegExp;
  /** Which jobs to read (default: those that did not succeed). */
  jobFilter?: (job: WorkflowJob) => boolean;
  /** Repository root on the runner, so report paths become repository-relative. */
  root?: string | undefined;
  /** The branch whose last successful run gives each failing job a passing log to compare with. */
  baseBranch?: string | undefined;
};

const FAILED = new Set(["failure", "timed_out", "startup_failure", "action_required"]);

export async function jobEvidence(
  ci: CiForge,
  owner: string,
  repo: string,
  job: WorkflowJob,
  maxLogBytes: number,
): Promise<JobEvidence> {
  const { text, truncated } = await ci.jobLog(owner, repo, job.id, maxLogBytes).catch((error: unknown) => ({
    text: `(the log could not be read: ${(error as Error).message})`,
    truncated: false,
  }));
  const log = cleanJobLog(text);
  const annotations = job.checkRunId ? await ci.annotations(owner, repo, job.checkRunId).catch(() => []) : [];
  return {
    id: job.id,
    name: job.name,
    url: job.htmlUrl,
    conclusion: job.conclusion,
    failedSteps: job.steps.filter((s) => s.conclusion !== null && FAILED.has(s.conclusion)).map((s) => s.name),
    annotations,
    log,
    logTruncated: truncated,
    errors: errorLines(log),
    infra: recogniseInfraFailure(log),
  };
}

/** Per-test results from the run's report artifacts. */
export async function artifactTests(
  ci: CiForge,
  owner: string,
  repo: string,
  runId: number,
  name: RegExp,
  maxBytes: number,
  root?: string,
): Promise<{ tests: TestCaseResult[]; files: string[]; problems: string[] }> {
  const out = { tests: [] as TestCaseResult[], files: [] as string[], problems: [] as string[] };
  for (const artifact of (await ci.artifacts(owner, repo, runId)).filter((a) => name.test(a.name))) {
    if (artifact.expired) {
      out.problems.push(`artifact ${artifact.name} has expired`);
      continue;
    }
    try {
      const read = reportsFromZip(await ci.downloadArtifact(owner, repo, artifact.id, maxBytes), root ? { root } : {});
      out.tests.push(...read.tests);
      out.files.push(...read.files.map((f) => `${artifact.name}/${f}`));
      out.problems.push(...read.problems.map((p) => `${artifact.name}/${p}`));
    } catch (error) {
      out.problems.push(`artifact ${artifact.name}: ${(error as Error).message}`);
    }
  }
  return out;
}

export async function collectRunEvidence(
  ci: CiForge,
  owner: string,
  repo: string,
  run: WorkflowRun,
  options: EvidenceOptions = {},
): Promise<RunEvidence> {
  const maxLogBytes = options.maxLogBytes ?? 4 * 1024 * 1024;
  const jobs = (await ci.jobs(owner, repo, run.id)).filter(
    options.jobFilter ?? ((j) => j.conclusion !== null && FAILED.has(j.conclusion)),
  );
  const evidence: JobEvidence[] = [];
  for (const job of jobs.slice(0, 8)) evidence.push(await jobEvidence(ci, owner, repo, job, maxLogBytes));
  const fromArtifacts = await artifactTests(
    ci,
    owner,
    repo,
    run.id,
    options.artifactName ?? /junit|test|report/i,
    options.maxArtifactBytes ?? 64 * 1024 * 1024,
    options.root,
  );
  const output = evidence.map((j) => `=== job ${j.name} ===\n${j.log}`).join("\n");
  const fromLogs = fromArtifacts.tests.length > 0 ? [] : evidence.flatMap((j) => options.parseConsole?.(j.log) ?? []);
  const tests = fromArtifacts.tests.length > 0 ? fromArtifacts.tests : fromLogs;
  const report: TestReport = {
    run: {
      argv: ["github-actions", run.path || run.name, `run ${run.id}`],
      exitCode: run.conclusion === "success" ? 0 : 1,
      signal: null,
      timedOut: run.conclusion === "timed_out",
      durationMs: 0,
      output: output.slice(-1_000_000),
      outputBytes: output.length,
      outputTruncated: output.length > 1_000_000 || evidence.some((j) => j.logTruncated),
      isolation: "actions",
    },
    tests,
    source: fromArtifacts.tests.length > 0 ? "junit" : fromLogs.length > 0 ? "console" : "none",
  };
  const failing = failingTests(report);
  const infra = failing.length === 0 ? evidence.find((j) => j.infra)?.infra : undefined;
  const problems = [...fromArtifacts.problems];
  if (failing.length === 0 && options.baseBranch && evidence.length > 0) {
    // A green log of the same job sets aside what every build prints; without one the digest still works.
    try {
      const passing = await findPassingRun(ci, owner, repo, run, options.baseBranch);
      if (passing)
        for (const j of evidence) j.passing = await passingLogOf(ci, owner, repo, passing, j.name, maxLogBytes);
    } catch (error) {
      problems.push(`passing log on ${options.baseBranch}: ${(error as Error).message}`);
    }
  }
  const digest =
    failing.length > 0
      ? digestReport(report)
      : evidence
          .map((j) => {
            const compared = j.passing
              ? `, compared with the passing log of the same job in run ${j.passing.runId} on ${j.passing.branch}`
              : ", no passing log to compare with";
            return `job ${j.name}${j.failedSteps.length ? ` (failed step: ${j.failedSteps.join(", ")})` : ""}${compared}:\n${digestLog(j.log, { maxLines: 30, passLog: j.passing?.log }).text}`;
          })
          .join("\n\n");
  const annotations = evidence
    .flatMap((j) => j.annotations.filter((a) => a.level === "failure" || a.level === "warning"))
    .slice(0, 10);
  const annotated = annotations.length
    ? `${digest}\n\nAnnotations:\n${annotations.map((a) => `${a.path}:${a.line}: ${a.title ? `${a.title}: ` : ""}${a.message.split("\n")[0]}`).join("\n")}`
    : digest;
  return {
    run,
    jobs: evidence,
    report,
    testsFrom: fromArtifacts.tests.length > 0 ? "artifact" : fromLogs.length > 0 ? "log" : "none",
    artifactFiles: fromArtifacts.files,
    problems,
    digest: annotated,
    infra,
  };
}

/** Evidence from another CI app's check suite: its failed check runs' output and annotations (there are no Actions logs or artifacts). */
export async function collectCheckSuiteEvidence(
  ci: CiForge,
  owner: string,
  repo: string,
  suite: { id: number; headSha: string; headBranch: string | null },
  options: Pick<EvidenceOptions, "parseConsole"> = {},
): Promise<RunEvidence> {
  const failed = (await ci.checkRunsForSuite(owner, repo, suite.id)).filter(
    (r) => r.conclusion !== null && FAILED.has(r.conclusion),
  );
  const jobs: JobEvidence[] = [];
  for (const r of failed.slice(0, 8)) {
    const log = cleanJobLog(`${r.summary}\n${r.text}`);
    jobs.push({
      id: r.id,
      name: r.name,
      url: "",
      conclusion: r.conclusion,
      failedSteps: [],
      annotations: await ci.annotations(owner, repo, r.id).catch(() => []),
      log,
      logTruncated: false,
      errors: errorLines(log),
      infra: recogniseInfraFailure(log),
    });
  }
  const output = jobs.map((j) => `=== check ${j.name} ===\n${j.log}`).join("\n");
  const tests = jobs.flatMap((j) => options.parseConsole?.(j.log) ?? []);
  const run: WorkflowRun = {
    id: suite.id,
    name: `check suite ${suite.id}`,
    path: "",
    displayTitle: "",
    event: "check_suite",
    status: "completed",
    conclusion: "failure",
    headSha: suite.headSha,
    headBranch: suite.headBranch,
    htmlUrl: "",
    checkSuiteId: suite.id,
    pullRequests: [],
    createdAt: "",
  };
  const report: TestReport = {
    run: {
      argv: ["check-suite", String(suite.id)],
      exitCode: 1,
      signal: null,
      timedOut: false,
      durationMs: 0,
      output,
      outputBytes: output.length,
      outputTruncated: false,
      isolation: "actions",
    },
    tests,
    source: tests.length > 0 ? "console" : "none",
  };
  const infra = failingTests(report).length === 0 ? jobs.find((j) => j.infra)?.infra : undefined;
  const digest =
    failingTests(report).length > 0
      ? digestReport(report)
      : jobs.map((j) => `check ${j.name}:\n${digestLog(j.log, { maxLines: 30 }).text}`).join("\n\n");
  return {
    run,
    jobs,
    report,
    testsFrom: tests.length > 0 ? "log" : "none",
    artifactFiles: [],
    problems: [],
    digest,
    infra,
  };
}
