// What the bot reads from GitHub about pull requests and CI, and the Actions runs it
// dispatches: the port and its types. Its Octokit backend is octokit-ci-forge.ts.

export type PullInfo = {
  number: number;
  title: string;
  body: string;
  state: string;
  url: string;
  headRef: string;
  headSha: string;
  /** owner/name of the head repository; null when the fork was deleted. */
  headRepo: string | null;
  baseRef: string;
  baseSha: string;
  /** The head lives in another repository (a fork). */
  fork: boolean;
};

export type WorkflowRun = {
  id: number;
  name: string;
  path: string;
  displayTitle: string;
  event: string;
  status: string;
  conclusion: string | null;
  headSha: string;
  headBranch: string | null;
  htmlUrl: string;
  checkSuiteId: number | undefined;
  pullRequests: number[];
  createdAt: string;
};

export type WorkflowJob = {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  htmlUrl: string;
  checkRunId: number | undefined;
  steps: Array<{ number: number; name: string; status: string; conclusion: string | null }>;
};

export type Annotation = { path: string; line: number; level: string; title: string; message: string };
export type Artifact = { id: number; name: string; sizeInBytes: number; expired: boolean };
export type CheckRun = {
  id: number;
  name: string;
  status: string;
  conclusion: string | null;
  summary: string;
  text: string;
};

export type CiForge = {
  pull(owner: string, repo: string, number: number): Promise<PullInfo>;
  /** Open pull requests whose head is this commit (forks included, which a run's `pull_requests` leaves out). */
  pullsForCommit(owner: string, repo: string, sha: string): Promise<number[]>;
  workflowRun(owner: string, repo: string, runId: number): Promise<WorkflowRun>;
  /** Runs of one workflow file, or of the repository, filtered (newest first); `status` takes a status or a conclusion ("success"). */
  workflowRuns(
    owner: string,
    repo: string,
    filter: {
      workflow?: string;
      headSha?: string;
      checkSuiteId?: number;
      event?: string;
      created?: string;
      branch?: string;
      status?: string;
    },
  ): Promise<WorkflowRun[]>;
  jobs(owner: string, repo: string, runId: number): Promise<WorkflowJob[]>;
  jobLog(owner: string, repo: string, jobId: number, maxBytes: number): Promise<{ text: string; truncated: boolean }>;
  annotations(owner: string, repo: string, checkRunId: number): Promise<Annotation[]>;
  checkRunsForSuite(owner: string, repo: string, checkSuiteId: number): Promise<CheckRun[]>;
  artifacts(owner: string, repo: string, runId: number): Promise<Artifact[]>;
  downloadArtifact(owner: string, repo: string, artifactId: number, maxBytes: number): Promise<Uint8Array>;
  workflowInstalled(owner: string, repo: string, file: string): Promise<boolean>;
  /** Dispatches a workflow; `runId` when the server returned the run's details. */
  dispatch(
    owner: string,
    repo: string,
    file: string,
    ref: string,
    inputs: Record<string, string>,
  ): Promise<{ runId: number | undefined }>;
  cancelRun(owner: string, repo: string, runId: number): Promise<void>;
};

export type RequestLike = (
  route: string,
  params?: Record<string, unknown>,
) => Promise<{ status: number; data: unknown }>;

export class CiForgeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "CiForgeError";
  }
}
