// The CiForge port over Octokit's request function: every answer the bot relies on is
// validated with zod (commit ids as hex only); logs and artifacts are read as streams with
// a size cap (GitHub answers both with a redirect to short-lived storage; fetch drops our
// Authorization header there).
import { z } from "zod";
import { CiForgeError, type CiForge, type RequestLike, type WorkflowRun } from "./ci-forge.ts";
import { readCapped } from "./read-capped.ts";

/** Commit ids become git arguments and branch names: nothing but hex gets through. */
const commitSha = z.string().regex(/^[0-9a-f]{40,64}$/, { message: "not a commit id" });

const pullSchema = z.object({
  number: z.number(),
  title: z.string(),
  body: z.string().nullish(),
  state: z.string(),
  html_url: z.string(),
  head: z.object({ ref: z.string(), sha: commitSha, repo: z.object({ full_name: z.string() }).nullable() }),
  base: z.object({ ref: z.string(), sha: commitSha, repo: z.object({ full_name: z.string() }) }),
});

const runSchema = z.object({
  id: z.number(),
  name: z.string().nullish(),
  path: z.string().default(""),
  display_title: z.string().default(""),
  event: z.string(),
  status: z.string().nullable(),
  conclusion: z.string().nullable(),
  head_sha: commitSha,
  head_branch: z.string().nullable(),
  html_url: z.string(),
  check_suite_id: z.number().optional(),
  pull_requests: z
    .array(z.object({ number: z.number() }))
    .nullable()
    .default([]),
  created_at: z.string(),
});

const jobSchema = z.object({
  id: z.number(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  html_url: z.string().nullable(),
  check_run_url: z.string(),
  steps: z
    .array(z.object({ number: z.number(), name: z.string(), status: z.string(), conclusion: z.string().nullable() }))
    .default([]),
});

const annotationSchema = z.object({
  path: z.string(),
  start_line: z.number(),
  annotation_level: z.string().nullable(),
  title: z.string().nullable(),
  message: z.string().nullable(),
});
const artifactSchema = z.object({ id: z.number(), name: z.string(), size_in_bytes: z.number(), expired: z.boolean() });
const checkRunSchema = z.object({
  id: z.number(),
  name: z.string(),
  status: z.string(),
  conclusion: z.string().nullable(),
  output: z.object({ summary: z.string().nullable(), text: z.string().nullable() }),
});

function parse<T>(schema: z.ZodType<T>, data: unknown, what: string): T {
  const result = schema.safeParse(data);
  if (!result.success)
    throw new CiForgeError(
      `GitHub's answer for ${what} did not have the expected shape: ${result.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return result.data;
}

const toRun = (r: z.infer<typeof runSchema>): WorkflowRun => ({
  id: r.id,
  name: r.name ?? "",
  path: r.path,
  displayTitle: r.display_title,
  event: r.event,
  status: r.status ?? "unknown",
  conclusion: r.conclusion,
  headSha: r.head_sha,
  headBranch: r.head_branch,
  htmlUrl: r.html_url,
  checkSuiteId: r.check_suite_id,
  pullRequests: (r.pull_requests ?? []).map((p) => p.number),
  createdAt: r.created_at,
});

const status = (error: unknown): number | undefined => (error as { status?: number }).status;

export function octokitCiForge(request: RequestLike): CiForge {
  const paged = async <T>(
    route: string,
    params: Record<string, unknown>,
    key: string | undefined,
    schema: z.ZodType<T>,
    what: string,
    maxPages = 10,
  ): Promise<T[]> => {
    const out: T[] = [];
    for (let page = 1; page <= maxPages; page++) {
      const { data } = await request(route, { ...params, per_page: 100, page });
      const items = parse(z.array(schema), key ? (data as Record<string, unknown>)[key] : data, what);
      out.push(...items);
      if (items.length < 100) break;
    }
    return out;
  };
  return {
    async pull(owner, repo, number) {
      const { data } = await request("GET /repos/{owner}/{repo}/pulls/{pull_number}", {
        owner,
        repo,
        pull_number: number,
      });
      const p = parse(pullSchema, data, `pull request #${number}`);
      return {
        number: p.number,
        title: p.title,
        body: p.body ?? "",
        state: p.state,
        url: p.html_url,
        headRef: p.head.ref,
        headSha: p.head.sha,
        headRepo: p.head.repo?.full_name ?? null,
        baseRef: p.base.ref,
        baseSha: p.base.sha,
        fork: p.head.repo?.full_name !== p.base.repo.full_name,
      };
    },
    async pullsForCommit(owner, repo, sha) {
      const pulls = await paged(
        "GET /repos/{owner}/{repo}/commits/{commit_sha}/pulls",
        { owner, repo, commit_sha: sha },
        undefined,
        z.object({ number: z.number(), state: z.string(), head: z.object({ sha: z.string() }) }),
        `pull requests of ${sha}`,
        1,
      );
      return pulls.filter((p) => p.state === "open" && p.head.sha === sha).map((p) => p.number);
    },
    async workflowRun(owner, repo, runId) {
      const { data } = await request("GET /repos/{owner}/{repo}/actions/runs/{run_id}", { owner, repo, run_id: runId });
      return toRun(parse(runSchema, data, `workflow run ${runId}`));
    },
    async workflowRuns(owner, repo, filter) {
      const query: Record<string, unknown> = { owner, repo };
      if (filter.headSha) query.head_sha = filter.headSha;
      if (filter.checkSuiteId) query.check_suite_id = filter.checkSuiteId;
      if (filter.event) query.event = filter.event;
      if (filter.created) query.created = filter.created;
      if (filter.branch) query.branch = filter.branch;
      if (filter.status) query.status = filter.status;
      const route = filter.workflow
        ? "GET /repos/{owner}/{repo}/actions/workflows/{workflow_id}/runs"
        : "GET /repos/{owner}/{repo}/actions/runs";
      const runs = await paged(
        route,
        filter.workflow ? { ...query, workflow_id: filter.workflow } : query,
        "workflow_runs",
        runSchema,
        "workflow runs",
        3,
      );
      return runs.map(toRun);
    },
    async jobs(owner, repo, runId) {
      const jobs = await paged(
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/jobs",
        { owner, repo, run_id: runId, filter: "latest" },
        "jobs",
        jobSchema,
        `jobs of run ${runId}`,
        5,
      );
      return jobs.map((j) => ({
        id: j.id,
        name: j.name,
        status: j.status,
        conclusion: j.conclusion,
        htmlUrl: j.html_url ?? "",
        checkRunId: Number(/\/check-runs\/(\d+)$/.exec(j.check_run_url)?.[1]) || undefined,
        steps: j.steps,
      }));
    },
    async jobLog(owner, repo, jobId, maxBytes) {
      const { data } = await request("GET /repos/{owner}/{repo}/actions/jobs/{job_id}/logs", {
        owner,
        repo,
        job_id: jobId,
        request: { parseSuccessResponseBody: false },
      });
      const { bytes, truncated } = await readCapped(data, maxBytes);
      return { text: new TextDecoder("utf-8", { fatal: false }).decode(bytes), truncated };
    },
    async annotations(owner, repo, checkRunId) {
      const items = await paged(
        "GET /repos/{owner}/{repo}/check-runs/{check_run_id}/annotations",
        { owner, repo, check_run_id: checkRunId },
        undefined,
        annotationSchema,
        `annotations of check run ${checkRunId}`,
        1,
      );
      return items.map((a) => ({
        path: a.path,
        line: a.start_line,
        level: a.annotation_level ?? "notice",
        title: a.title ?? "",
        message: a.message ?? "",
      }));
    },
    async checkRunsForSuite(owner, repo, checkSuiteId) {
      const runs = await paged(
        "GET /repos/{owner}/{repo}/check-suites/{check_suite_id}/check-runs",
        { owner, repo, check_suite_id: checkSuiteId },
        "check_runs",
        checkRunSchema,
        `check runs of suite ${checkSuiteId}`,
        2,
      );
      return runs.map((r) => ({
        id: r.id,
        name: r.name,
        status: r.status,
        conclusion: r.conclusion,
        summary: r.output.summary ?? "",
        text: r.output.text ?? "",
      }));
    },
    async artifacts(owner, repo, runId) {
      const items = await paged(
        "GET /repos/{owner}/{repo}/actions/runs/{run_id}/artifacts",
        { owner, repo, run_id: runId },
        "artifacts",
        artifactSchema,
        `artifacts of run ${runId}`,
        2,
      );
      return items.map((a) => ({ id: a.id, name: a.name, sizeInBytes: a.size_in_bytes, expired: a.expired }));
    },
    async downloadArtifact(owner, repo, artifactId, maxBytes) {
      const { data } = await request("GET /repos/{owner}/{repo}/actions/artifacts/{artifact_id}/{archive_format}", {
        owner,
        repo,
        artifact_id: artifactId,
        archive_format: "zip",
        request: { parseSuccessResponseBody: false },
      });
      const { bytes, truncated } = await readCapped(data, maxBytes);
      if (truncated) throw new CiForgeError(`artifact ${artifactId} is larger than ${maxBytes} bytes; not read`);
      return bytes;
    },
    async workflowInstalled(owner, repo, file) {
      // Listing answers 200 whatever is installed (a single workflow's 404 is not in the REST description).
      const workflows = await paged(
        "GET /repos/{owner}/{repo}/actions/workflows",
        { owner, repo },
        "workflows",
        z.object({ path: z.string(), state: z.string() }),
        "workflows",
        3,
      );
      return workflows.some((w) => w.path === `.github/workflows/${file}` && w.state === "active");
    },
    async dispatch(owner, repo, file, ref, inputs) {
      const route = "POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches";
      try {
        const { status: code, data } = await request(route, {
          owner,
          repo,
          workflow_id: file,
          ref,
          inputs,
          return_run_details: true,
        });
        const id = code === 200 ? (data as { workflow_run_id?: unknown }).workflow_run_id : undefined;
        return { runId: typeof id === "number" ? id : undefined };
      } catch (error) {
        // GitHub Enterprise Server may not know `return_run_details`: dispatch without it.
        if (status(error) !== 422 || !/return_run_details/.test((error as Error).message)) throw error;
        await request(route, { owner, repo, workflow_id: file, ref, inputs });
        return { runId: undefined };
      }
    },
    async cancelRun(owner, repo, runId) {
      try {
        await request("POST /repos/{owner}/{repo}/actions/runs/{run_id}/cancel", { owner, repo, run_id: runId });
      } catch (error) {
        // 409: the run already finished.
        if (status(error) !== 409) throw error;
      }
    },
  };
}
