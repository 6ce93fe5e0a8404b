// A small GitHub at the HTTP level (nock), answering from in-memory state, for end-to-end
// tests of the App. Every request is checked against GitHub's published REST description
// (test/fixtures/github-rest/operations.json): the operation must exist, the path must
// fit its template, the required body fields must be there and no unknown ones.
import { readFileSync } from "node:fs";
import nock from "nock";

type OperationSpec = { method: string; path: string; query: string[]; requiredBody: string[]; bodyProperties: string[]; responses: string[] };
const spec = JSON.parse(readFileSync(new URL("../fixtures/github-rest/operations.json", import.meta.url), "utf8")) as { operations: Record<string, OperationSpec> };
const routes = Object.entries(spec.operations).map(([id, op]) => ({
  id,
  op,
  pattern: new RegExp(`^${op.path.replace(/\{[^}]+\}/g, "([^/]+)").replace(/\{\+?path\}/, "(.+)")}$`),
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
  defaultBranch: string;
  cloneUrl: string;
};

export type RecordedRequest = { operation: string; method: string; path: string; body: Record<string, unknown> | undefined };

export function fakeGitHub(state: FakeGitHubState) {
  const requests: RecordedRequest[] = [];
  const errors: string[] = [];
  let nextId = 1000;
  const scope = nock("https://api.github.com").persist();
  for (const method of ["GET", "POST", "PATCH"] as const) {
    scope.intercept(/.*/, method).reply(async (request: Request) => {
      const url = new URL(request.url);
      const route = routes.find((r) => r.op.method === method && r.pattern.test(url.pathname));
      const text = method === "GET" ? "" : await request.text();
      const body = text ? (JSON.parse(text) as Record<string, unknown>) : undefined;
      if (!route) {
        errors.push(`${method} ${url.pathname} is not an operation of GitHub's REST description (or not one the bot is known to call)`);
        return [404, { message: "Not Found" }];
      }
      for (const field of route.op.requiredBody) if (!body || !(field in body)) errors.push(`${route.id}: required body field "${field}" missing`);
      for (const field of Object.keys(body ?? {})) if (!route.op.bodyProperties.includes(field)) errors.push(`${route.id}: unknown body field "${field}"`);
      for (const key of url.searchParams.keys()) if (!route.op.query.includes(key)) errors.push(`${route.id}: unknown query parameter "${key}"`);
      const params = Object.fromEntries(route.names.map((n, i) => [n, decodeURIComponent(route.pattern.exec(url.pathname)?.[i + 1] ?? "")]));
      requests.push({ operation: route.id, method, path: url.pathname + url.search, body });
      const reply = answer(route.id, params, url, body);
      if (!route.op.responses.includes(String(reply[0]))) errors.push(`${route.id}: status ${reply[0]} is not a documented response`);
      return reply;
    });
  }

  function answer(id: string, params: Record<string, string>, url: URL, body: Record<string, unknown> | undefined): [number, unknown] {
    switch (id) {
      case "apps/create-installation-access-token":
        return [201, { token: "ghs_fakeInstallationToken0123456789abcdef", expires_at: new Date(Date.now() + 3600_000).toISOString(), permissions: {} }];
      case "repos/get":
        return [200, { id: 1, name: params.repo, full_name: `${params.owner}/${params.repo}`, default_branch: state.defaultBranch, clone_url: state.cloneUrl }];
      case "repos/get-content": {
        const content = state.files[params.path ?? ""];
        if (content === undefined) return [404, { message: "Not Found" }];
        return [200, { type: "file", encoding: "base64", content: Buffer.from(content).toString("base64"), path: params.path, name: params.path }];
      }
      case "repos/get-collaborator-permission-level": {
        const permission = state.permissions[params.username ?? ""] ?? "none";
        return [200, { permission: permission === "maintain" ? "write" : permission === "triage" ? "read" : permission, role_name: permission, user: { login: params.username } }];
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
        const comment = { id: nextId++, body: String(body?.body ?? ""), number: Number(params.issue_number) };
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
        return [201, { id: nextId++, content: body?.content }];
      case "pulls/list": {
        const head = url.searchParams.get("head")?.split(":")[1];
        return [200, state.pulls.filter((p) => p.head === head).map((p) => ({ number: p.number, html_url: `https://github.com/o/r/pull/${p.number}`, draft: p.draft }))];
      }
      case "pulls/create": {
        const pull = { number: nextId++, head: String(body?.head), base: String(body?.base), title: String(body?.title), body: String(body?.body), draft: Boolean(body?.draft) };
        state.pulls.push(pull);
        state.issues = { ...state.issues, [pull.number]: { title: pull.title, body: pull.body } };
        return [201, { number: pull.number, html_url: `https://github.com/o/r/pull/${pull.number}`, draft: pull.draft }];
      }
      case "pulls/update": {
        const pull = state.pulls.find((p) => p.number === Number(params.pull_number));
        if (!pull) return [404, { message: "Not Found" }];
        Object.assign(pull, { title: body?.title ?? pull.title, body: body?.body ?? pull.body });
        state.issues = { ...state.issues, [pull.number]: { title: pull.title, body: pull.body } };
        return [200, { number: pull.number, html_url: `https://github.com/o/r/pull/${pull.number}` }];
      }
      default:
        errors.push(`no fake for ${id}`);
        return [404, { message: "Not Found" }];
    }
  }

  return {
    requests,
    errors,
    calls: (operation: string) => requests.filter((r) => r.operation === operation),
  };
}
