// A small GitHub at the HTTP level (nock), answering from in-memory state, for end-to-end
// tests of the App. Every request is checked against GitHub's published REST description
// (test/fixtures/github-rest/operations.json): the operation must exist, the path must
// fit its template, the required body fields must be there and no unknown ones.
import { readFileSync } from "node:fs";
import nock from "nock";
import { nockOn } from "./nock-on.ts";
import { bareRepoPath, DEFAULT_FAKE_BOT, fakeGitData, type FakeBot } from "./fake-git-data.ts";

type OperationSpec = {
  method: string;
  path: string;
  query: string[];
  requiredBody: string[];
  bodyProperties: string[];
  responses: string[];
};
const spec = JSON.parse(readFileSync(new URL("../fixtures/github-rest/operations.json", import.meta.url), "utf8")) as {
  operations: Record<string, OperationSpec>;
};
const routes = Object.entries(spec.operations).map(([id, op]) => ({
  id,
  op,
  pattern: new RegExp(
    `^${op.path
      .replace(/\{ref\}$/, "(.+)")
      .replace(/\{[^}]+\}/g, "([^/]+)")
      .replace(/\{\+?path\}/, "(.+)")}$`,
  ),
  names: [...op.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1] as string),
}));

export type FakeGitHubState = {
  issue: { title: string; body: string };
  /** Other issues and pull requests by number (a PR is an issue too); `issue` answers the rest. */
  issues?: Record<number, { title: string; body: string }>;
  comments: Array<{ id: number; body: string; number?: number }>;
  pulls: Array<{ number: number; head: string; base: string; title: string; body: string; draft: boolean }>;
  permissions: Record<string, string>;
  files: Record<string, string>;
  /** Raw contents-API answers by path (a directory listing, a symlink, a file too large to inline); they win over `files`. */
  contents?: Record<string, unknown>;
  defaultBranch: string;
  cloneUrl: string;
  /** Pull requests under repair (pulls/get), by number. */
  prs?: Record<number, FakePull>;
  /** Open pull requests by head commit (repos/list-pull-requests-associated-with-commit). */
  commitPulls?: Record<string, number[]>;
  actions?: FakeActions;
  /** The bot's own check runs (checks/create, checks/update), with every update's body in order. */
  ownCheckRuns?: FakeCheckRun[];
  /** The App's bot user (GET /app, GET /users/<slug>[bot]; the author of commits made through the Git Data API). */
  bot?: FakeBot;
  /** Called before a ref is created or updated through the Git Data API (a test moves the branch here). */
  beforeRefUpdate?: (operation: string, ref: string) => void;
  /** Apps created through the manifest flow, by the one-time code GitHub gave the browser (apps/create-from-manifest; used once). */
  manifestConversions?: Record<string, Record<string, unknown>>;
  /** An outage: a status (502, 503) to answer an operation with instead, or undefined to answer it. */
  fault?: (operation: string) => number | undefined;
  /** The next id (comment, check run, pull request number, …) the fake hands out: kept in the state, so a copy of it numbers on. */
  nextId?: number;
};

export type FakeCheckRun = {
  id: number;
  name: string;
  head_sha: string;
  external_id: string;
  status: string;
  conclusion: string | null;
  output: { title: string; summary: string };
  annotations: Array<{
    path: string;
    start_line: number;
    end_line: number;
    annotation_level: string;
    message: string;
    title?: string;
  }>;
  actions: Array<{ label: string; description: string; identifier: string }>;
  /** The statuses the run went through, in order. */
  history: string[];
};

export type FakePull = {
  title: string;
  body: string;
  state: "open" | "closed";
  headRef: string;
  headSha: string;
  baseRef: string;
  baseSha: string;
  fork: boolean;
};

export type FakeRun = {
  id: number;
  name: string;
  path: string;
  display_title: string;
  event: string;
  status: "queued" | "in_progress" | "completed";
  conclusion: string | null;
  head_sha: string;
  head_branch: string;
  pull_requests: Array<{ number: number }>;
  created_at: string;
  html_url: string;
  check_suite_id: number;
};
export type FakeJob = {
  id: number;
  run_id: number;
  name: string;
  status: string;
  conclusion: string | null;
  steps: Array<{ number: number; name: string; status: string; conclusion: string | null }>;
  log: string;
};
export type FakeArtifact = { id: number; run_id: number; name: string; zip: Buffer; expired: boolean };
export type FakeDispatch = { workflow: string; ref: string; inputs: Record<string, string>; runId: number };

export type FakeActions = {
  /** Workflow files installed and active. */
  installed: string[];
  runs: FakeRun[];
  jobs: FakeJob[];
  artifacts: FakeArtifact[];
  annotations: Record<
    number,
    Array<{ path: string; start_line: number; annotation_level: string; title: string; message: string }>
  >;
  /** true: the dispatch answers 200 with the run's id; false: 204, as GitHub Enterprise Server may. */
  returnRunDetails: boolean;
  dispatches: FakeDispatch[];
  cancelled: number[];
  /** The test's runner: called once per dispatch with the queued run. */
  onDispatch?: (dispatch: FakeDispatch, run: FakeRun) => void;
  /** Check runs of other CI apps, by check suite. */
  checkRuns: Array<{ id: number; suite: number; name: string; conclusion: string; summary: string; text: string }>;
  /** Authorization headers seen by the log and artifact storage hosts (must stay empty). */
  storageAuthorization: string[];
};

export function fakeActions(installed: string[] = []): FakeActions {
  return {
    installed,
    runs: [],
    jobs: [],
    artifacts: [],
    annotations: {},
    checkRuns: [],
    returnRunDetails: true,
    dispatches: [],
    cancelled: [],
    storageAuthorization: [],
  };
}

const LOG_HOST = "https://results-receiver.actions.githubusercontent.com";
const ARTIFACT_HOST = "https://productionresultssa0.blob.core.windows.net";

const runJson = (r: FakeRun, owner: string, repo: string) => ({
  ...r,
  path: r.path,
  workflow_id: 1,
  url: `https://api.github.com/repos/${owner}/${repo}/actions/runs/${r.id}`,
});

/** The fake's own persistent interceptors (GitHub's API and its log and artifact storage), as nock lists pending mocks. */
export function isFakeGitHubMock(mock: string): boolean {
  return [new URL("https://api.github.com").host, new URL(LOG_HOST).host, new URL(ARTIFACT_HOST).host].some((host) =>
    mock.includes(host),
  );
}

export type RecordedRequest = {
  operation: string;
  method: string;
  path: string;
  body: Record<string, unknown> | undefined;
};

export function fakeGitHub(state: FakeGitHubState) {
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  /** A fresh id; `peek`: the one the next call gives. */
  const nextId = (peek = false) => {
    const id = state.nextId ?? 1000;
    if (!peek) state.nextId = id + 1;
    return id;
  };
  nockOn();
  const scope = nock("https://api.github.com").persist();
  // Logs and artifacts: GitHub redirects to short-lived storage URLs on other hosts, which
  // must never see our token.
  const storage = (host: string, path: RegExp, body: (id: number) => [string | Buffer, string] | undefined) =>
    nock(host)
      .persist()
      .get(path)
      .reply((request: Request) => {
        const auth = request.headers.get("authorization");
        if (auth) state.actions?.storageAuthorization.push(auth);
        const found = body(Number(path.exec(new URL(request.url).pathname)?.[1]));
        return found ? [200, found[0], { "content-type": found[1] }] : [404, "not found"];
      });
  storage(LOG_HOST, /^\/logs\/(\d+)/, (id) => {
    const job = state.actions?.jobs.find((j) => j.id === id);
    return job && [job.log, "text/plain; charset=utf-8"];
  });
  storage(ARTIFACT_HOST, /^\/artifacts\/(\d+)\.zip/, (id) => {
    const artifact = state.actions?.artifacts.find((a) => a.id === id);
    return artifact && [artifact.zip, "application/zip"];
  });
  const gitData = fakeGitData(
    () => bareRepoPath(state.cloneUrl),
    () => state.bot ?? DEFAULT_FAKE_BOT,
    { beforeRefUpdate: (op, ref) => state.beforeRefUpdate?.(op, ref) },
  );
  for (const method of ["GET", "POST", "PATCH", "DELETE"] as const) {
    scope.intercept(/.*/, method).reply(async (request: Request) => {
      const url = new URL(request.url);
      const route = routes.find((r) => r.op.method === method && r.pattern.test(url.pathname));
      const text = method === "GET" || method === "DELETE" ? "" : await request.text();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      if (!route) {
        errors.push(
          `${method} ${url.pathname} is not an operation of GitHub's REST description (or not one the bot is known to call)`,
        );
        return [404, { message: "Not Found" }];
      }
      for (const field of route.op.requiredBody)
        if (!body || !(field in body)) errors.push(`${route.id}: required body field "${field}" missing`);
      for (const field of Object.keys(body ?? {}))
        if (!route.op.bodyProperties.includes(field)) errors.push(`${route.id}: unknown body field "${field}"`);
      for (const key of url.searchParams.keys())
        if (!route.op.query.includes(key)) errors.push(`${route.id}: unknown query parameter "${key}"`);
      const params = Object.fromEntries(
        route.names.map((n, i) => [n, decodeURIComponent(route.pattern.exec(url.pathname)?.[i + 1] ?? "")]),
      );
      requests.push({ operation: route.id, method, path: url.pathname + url.search, body });
      // GitHub's own failure, not an answer of the operation (so not checked against its responses).
      const outage = state.fault?.(route.id);
      if (outage !== undefined)
        return [outage, { message: "Server Error" }, { "content-type": "application/json" }] as [
          number,
          Record<string, unknown>,
          Record<string, string>,
        ];
      const reply = answer(route.id, params, url, body);
      if (!route.op.responses.includes(String(reply[0])))
        errors.push(`${route.id}: status ${reply[0]} is not a documented response`);
      // GitHub reports the rate limit on every answer; the App's metrics read it.
      const rateLimit = {
        "x-ratelimit-limit": "5000",
        "x-ratelimit-remaining": String(Math.max(0, 5000 - requests.length)),
        "x-ratelimit-resource": "core",
      };
      return [reply[0], reply[1], { ...rateLimit, ...reply[2] }] as [
        number,
        string | Record<string, unknown>,
        Record<string, string>,
      ];
    });
  }

  function answer(
    id: string,
    params: Record<string, string>,
    url: URL,
    body: Record<string, unknown> | undefined,
  ): [number, unknown, Record<string, string>?] {
    const actions = state.actions;
    const { owner = "", repo = "" } = params;
    switch (id) {
      case "pulls/get": {
        const pr = state.prs?.[Number(params.pull_number)];
        if (!pr) return [404, { message: "Not Found" }];
        const base = { full_name: `${owner}/${repo}` };
        return [
          200,
          {
            number: Number(params.pull_number),
            title: pr.title,
            body: pr.body,
            state: pr.state,
            html_url: `https://github.com/${owner}/${repo}/pull/${params.pull_number}`,
            head: { ref: pr.headRef, sha: pr.headSha, repo: pr.fork ? { full_name: `contributor/${repo}` } : base },
            base: { ref: pr.baseRef, sha: pr.baseSha, repo: base },
          },
        ];
      }
      case "repos/list-pull-requests-associated-with-commit":
        return [
          200,
          (state.commitPulls?.[params.commit_sha ?? ""] ?? []).map((n) => ({
            number: n,
            state: state.prs?.[n]?.state ?? "open",
            head: { sha: state.prs?.[n]?.headSha ?? params.commit_sha },
          })),
        ];
      case "actions/list-repo-workflows": {
        const workflows = (actions?.installed ?? []).map((file, i) => ({
          id: i + 1,
          name: file,
          path: `.github/workflows/${file}`,
          state: "active",
        }));
        return [200, { total_count: workflows.length, workflows }];
      }
      case "actions/create-workflow-dispatch": {
        if (!actions?.installed.includes(params.workflow_id ?? "")) return [404, { message: "Not Found" }];
        const inputs = (body?.inputs ?? {}) as Record<string, string>;
        const run: FakeRun = {
          id: nextId(),
          name: "autogen-verify",
          path: `.github/workflows/${params.workflow_id}`,
          display_title: `autogen-verify ${inputs.correlation_id ?? ""}`,
          event: "workflow_dispatch",
          status: "queued",
          conclusion: null,
          head_sha: "0".repeat(40),
          head_branch: String(body?.ref),
          pull_requests: [],
          created_at: new Date().toISOString().replace(/\.\d+Z$/, "Z"),
          html_url: `https://github.com/${owner}/${repo}/actions/runs/${nextId(true)}`,
          check_suite_id: nextId(),
        };
        actions.runs.push(run);
        const dispatch = { workflow: params.workflow_id ?? "", ref: String(body?.ref), inputs, runId: run.id };
        actions.dispatches.push(dispatch);
        actions.onDispatch?.(dispatch, run);
        if (body?.return_run_details && actions.returnRunDetails)
          return [
            200,
            {
              workflow_run_id: run.id,
              run_url: `https://api.github.com/repos/${owner}/${repo}/actions/runs/${run.id}`,
              html_url: run.html_url,
            },
          ];
        return [204, ""];
      }
      case "actions/list-workflow-runs":
      case "actions/list-workflow-runs-for-repo": {
        const q = url.searchParams;
        const created = q.get("created")?.replace(/^>=/, "");
        const runs = (actions?.runs ?? []).filter(
          (r) =>
            (!params.workflow_id || r.path.endsWith(`/${params.workflow_id}`)) &&
            (!q.get("head_sha") || r.head_sha === q.get("head_sha")) &&
            (!q.get("event") || r.event === q.get("event")) &&
            (!q.get("check_suite_id") || r.check_suite_id === Number(q.get("check_suite_id"))) &&
            (!q.get("branch") || r.head_branch === q.get("branch")) &&
            (!q.get("status") || r.status === q.get("status") || r.conclusion === q.get("status")) &&
            (!created || r.created_at >= created),
        );
        // Newest first, as GitHub lists them.
        runs.sort((a, b) => b.created_at.localeCompare(a.created_at) || b.id - a.id);
        return [200, { total_count: runs.length, workflow_runs: runs.map((r) => runJson(r, owner, repo)) }];
      }
      case "actions/get-workflow-run": {
        const run = actions?.runs.find((r) => r.id === Number(params.run_id));
        return run ? [200, runJson(run, owner, repo)] : [404, { message: "Not Found" }];
      }
      case "actions/cancel-workflow-run": {
        const run = actions?.runs.find((r) => r.id === Number(params.run_id));
        if (!run) return [404, { message: "Not Found" }];
        if (run.status === "completed") return [409, { message: "Cannot cancel a workflow run that is completed." }];
        Object.assign(run, { status: "completed", conclusion: "cancelled" });
        actions?.cancelled.push(run.id);
        return [202, {}];
      }
      case "actions/list-jobs-for-workflow-run": {
        const jobs = (actions?.jobs ?? []).filter((j) => j.run_id === Number(params.run_id));
        return [
          200,
          {
            total_count: jobs.length,
            jobs: jobs.map(({ log: _log, ...j }) => ({
              ...j,
              html_url: `https://github.com/${owner}/${repo}/actions/runs/${j.run_id}/job/${j.id}`,
              check_run_url: `https://api.github.com/repos/${owner}/${repo}/check-runs/${j.id}`,
            })),
          },
        ];
      }
      case "actions/download-job-logs-for-workflow-run":
        return [302, "", { location: `${LOG_HOST}/logs/${params.job_id}?sig=short-lived` }];
      case "checks/list-for-suite": {
        const runs = (actions?.checkRuns ?? []).filter((r) => r.suite === Number(params.check_suite_id));
        return [
          200,
          {
            total_count: runs.length,
            check_runs: runs.map((r) => ({
              id: r.id,
              name: r.name,
              status: "completed",
              conclusion: r.conclusion,
              output: { title: r.name, summary: r.summary, text: r.text, annotations_count: 0, annotations_url: "" },
            })),
          },
        ];
      }
      case "checks/create":
      case "checks/update": {
        const runs = (state.ownCheckRuns ??= []);
        let run = runs.find((r) => r.id === Number(params.check_run_id));
        if (id === "checks/create") {
          run = {
            id: nextId(),
            name: String(body?.name),
            head_sha: String(body?.head_sha),
            external_id: String(body?.external_id ?? ""),
            status: "queued",
            conclusion: null,
            output: { title: "", summary: "" },
            annotations: [],
            actions: [],
            history: [],
          };
          runs.push(run);
        }
        if (!run) return [404, { message: "Not Found" }];
        // GitHub's limits, as its documentation states them: the fake refuses what GitHub would.
        const output = body?.output as
          { title?: string; summary?: string; annotations?: FakeCheckRun["annotations"] } | undefined;
        const actions = body?.actions as FakeCheckRun["actions"] | undefined;
        if (output && (typeof output.title !== "string" || typeof output.summary !== "string"))
          errors.push(`${id}: output needs a title and a summary`);
        if ((output?.summary?.length ?? 0) > 65_535) errors.push(`${id}: output.summary is over 65535 characters`);
        if ((output?.annotations?.length ?? 0) > 50) errors.push(`${id}: more than 50 annotations in one request`);
        for (const a of output?.annotations ?? [])
          if (
            !a.path ||
            !(a.start_line >= 1) ||
            !(a.end_line >= a.start_line) ||
            !["notice", "warning", "failure"].includes(a.annotation_level) ||
            !a.message
          )
            errors.push(`${id}: malformed annotation ${JSON.stringify(a)}`);
        if (
          actions &&
          (actions.length > 3 ||
            actions.some((a) => a.label.length > 20 || a.description.length > 40 || a.identifier.length > 20))
        )
          errors.push(`${id}: actions over GitHub's limits`);
        if (body?.status === "completed" && !body.conclusion) errors.push(`${id}: completed without a conclusion`);
        if (output) run.output = { title: String(output.title), summary: String(output.summary) };
        run.annotations.push(...(output?.annotations ?? []));
        if (actions) run.actions = actions;
        if (body?.status) run.status = String(body.status);
        if (body?.conclusion) run.conclusion = String(body.conclusion);
        run.history.push(run.status);
        return [
          id === "checks/create" ? 201 : 200,
          { id: run.id, name: run.name, head_sha: run.head_sha, status: run.status, conclusion: run.conclusion },
        ];
      }
      case "checks/list-annotations":
        return [200, actions?.annotations[Number(params.check_run_id)] ?? []];
      case "actions/list-workflow-run-artifacts": {
        const name = url.searchParams.get("name");
        const artifacts = (actions?.artifacts ?? []).filter(
          (a) => a.run_id === Number(params.run_id) && (!name || a.name === name),
        );
        return [
          200,
          {
            total_count: artifacts.length,
            artifacts: artifacts.map(({ zip, run_id: _run, ...a }) => ({ ...a, size_in_bytes: zip.length })),
          },
        ];
      }
      case "actions/download-artifact":
        if (params.archive_format !== "zip") return [404, { message: "Not Found" }];
        return [302, "", { location: `${ARTIFACT_HOST}/artifacts/${params.artifact_id}.zip?sig=short-lived` }];
      case "apps/create-from-manifest": {
        const app = state.manifestConversions?.[params.code ?? ""];
        if (!app) return [404, { message: "Not Found" }];
        delete state.manifestConversions?.[params.code ?? ""];
        return [201, app];
      }
      case "apps/create-installation-access-token":
        return [
          201,
          {
            token: "ghs_fakeInstallationToken0123456789abcdef",
            expires_at: new Date(Date.now() + 3600_000).toISOString(),
            permissions: {},
          },
        ];
      case "repos/get":
        return [
          200,
          {
            id: 1,
            name: params.repo,
            full_name: `${params.owner}/${params.repo}`,
            default_branch: state.defaultBranch,
            clone_url: state.cloneUrl,
          },
        ];
      case "repos/get-content": {
        const raw = state.contents?.[params.path ?? ""];
        if (raw !== undefined) return [200, raw];
        const content = state.files[params.path ?? ""];
        if (content === undefined) return [404, { message: "Not Found" }];
        return [
          200,
          {
            type: "file",
            encoding: "base64",
            content: Buffer.from(content).toString("base64"),
            path: params.path,
            name: params.path,
          },
        ];
      }
      case "repos/get-collaborator-permission-level": {
        const permission = state.permissions[params.username ?? ""] ?? "none";
        return [
          200,
          {
            permission: permission === "maintain" ? "write" : permission === "triage" ? "read" : permission,
            role_name: permission,
            user: { login: params.username },
          },
        ];
      }
      case "issues/get": {
        const issue = state.issues?.[Number(params.issue_number)] ?? state.issue;
        return [200, { number: Number(params.issue_number), title: issue.title, body: issue.body, state: "open" }];
      }
      case "issues/list-comments": {
        const page = Number(url.searchParams.get("page") ?? 1);
        const per = Number(url.searchParams.get("per_page") ?? 30);
        const here = state.comments.filter((c) => (c.number ?? 42) === Number(params.issue_number));
        return [200, here.slice((page - 1) * per, page * per).map(({ id, body: text }) => ({ id, body: text }))];
      }
      case "issues/create-comment": {
        const comment = { id: nextId(), body: String(body?.body ?? ""), number: Number(params.issue_number) };
        state.comments.push(comment);
        return [201, { id: comment.id, body: comment.body }];
      }
      case "issues/update-comment": {
        const comment = state.comments.find((c) => c.id === Number(params.comment_id));
        if (!comment) return [404, { message: "Not Found" }];
        comment.body = String(body?.body ?? "");
        return [200, { id: comment.id, body: comment.body }];
      }
      case "reactions/create-for-issue":
        return [201, { id: nextId(), content: body?.content }];
      case "pulls/list": {
        const head = url.searchParams.get("head")?.split(":")[1];
        return [
          200,
          state.pulls
            .filter((p) => p.head === head)
            .map((p) => ({ number: p.number, html_url: `https://github.com/o/r/pull/${p.number}`, draft: p.draft })),
        ];
      }
      case "pulls/create": {
        const pull = {
          number: nextId(),
          head: String(body?.head),
          base: String(body?.base),
          title: String(body?.title),
          body: String(body?.body),
          draft: Boolean(body?.draft),
        };
        state.pulls.push(pull);
        state.issues = { ...state.issues, [pull.number]: { title: pull.title, body: pull.body } };
        return [
          201,
          { number: pull.number, html_url: `https://github.com/o/r/pull/${pull.number}`, draft: pull.draft },
        ];
      }
      case "pulls/update": {
        const pull = state.pulls.find((p) => p.number === Number(params.pull_number));
        if (!pull) return [404, { message: "Not Found" }];
        Object.assign(pull, { title: body?.title ?? pull.title, body: body?.body ?? pull.body });
        state.issues = { ...state.issues, [pull.number]: { title: pull.title, body: pull.body } };
        return [200, { number: pull.number, html_url: `https://github.com/o/r/pull/${pull.number}` }];
      }
      default: {
        const gitReply = gitData.answer(id, params, body);
        if (gitReply) return gitReply;
        errors.push(`no fake for ${id}`);
        return [404, { message: "Not Found" }];
      }
    }
  }

  return {
    refUpdates: gitData.refUpdates,
    requests,
    errors,
    calls: (operation: string) => requests.filter((r) => r.operation === operation),
  };
}
