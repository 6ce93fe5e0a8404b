// Extracts, from GitHub's published REST description (github/rest-api-description, as
// npm ships it in @octokit/openapi), the operations the bot calls: method, path
// template, parameters, required body fields and response codes. The tests check every
// mocked request against this file, so the mocks cannot drift from the real API.
//
//   mkdir /tmp/oapi && cd /tmp/oapi && npm pack @octokit/openapi && tar xzf octokit-openapi-*.tgz
//   node scripts/extract-github-rest.ts /tmp/oapi/package/generated/api.github.com.json <version>
import { readFileSync, writeFileSync } from "node:fs";

export const OPERATIONS = [
  "apps/create-installation-access-token",
  "apps/create-from-manifest",
  "repos/get",
  "repos/get-content",
  "repos/get-collaborator-permission-level",
  "issues/get",
  "issues/list-comments",
  "issues/create-comment",
  "issues/update-comment",
  "reactions/create-for-issue",
  "pulls/list",
  "pulls/create",
  "pulls/update",
  "pulls/get",
  "repos/list-pull-requests-associated-with-commit",
  "actions/list-repo-workflows",
  "actions/create-workflow-dispatch",
  "actions/list-workflow-runs",
  "actions/list-workflow-runs-for-repo",
  "actions/get-workflow-run",
  "actions/cancel-workflow-run",
  "actions/list-jobs-for-workflow-run",
  "actions/download-job-logs-for-workflow-run",
  "actions/list-workflow-run-artifacts",
  "actions/download-artifact",
  "checks/list-annotations",
  "checks/list-for-suite",
  // The check run named `autogen` on the commit a job concerns.
  "checks/create",
  "checks/update",
  // The dashboard's GitHub sign-in: who signed in, their organisation memberships, the App's installations.
  "users/get-authenticated",
  "orgs/get-membership-for-authenticated-user",
  "apps/list-installations",
  // Publishing a change as the App (src/forge/git-data.ts): the bot's identity, then blobs, a tree, a commit and the branch.
  "apps/get-authenticated",
  "users/get-by-username",
  "git/create-blob",
  "git/create-tree",
  "git/create-commit",
  "git/get-ref",
  "git/create-ref",
  "git/update-ref",
  "git/delete-ref",
  "git/list-matching-refs",
];

type Operation = {
  operationId: string;
  parameters?: Array<{ name: string; in: string; required?: boolean } | { $ref: string }>;
  requestBody?: {
    content?: Record<string, { schema?: { required?: string[]; properties?: Record<string, unknown> } }>;
  };
  responses: Record<string, unknown>;
};

const [source, version] = process.argv.slice(2);
if (!source) {
  console.error("usage: node scripts/extract-github-rest.ts <api.github.com.json> [package version]");
  process.exit(2);
}
const description = JSON.parse(readFileSync(source, "utf8")) as {
  info: { version: string };
  paths: Record<string, Record<string, Operation>>;
  components: { parameters: Record<string, { name: string; in: string; required?: boolean }> };
};
const out: Record<string, unknown> = {};
for (const [path, methods] of Object.entries(description.paths)) {
  for (const [method, op] of Object.entries(methods)) {
    if (!OPERATIONS.includes(op.operationId)) continue;
    const parameters = (op.parameters ?? [])
      .map((p) => ("$ref" in p ? description.components.parameters[p.$ref.split("/").at(-1) ?? ""] : p))
      .filter((p) => p !== undefined);
    const body = op.requestBody?.content?.["application/json"]?.schema;
    out[op.operationId] = {
      method: method.toUpperCase(),
      path,
      query: parameters.filter((p) => p.in === "query").map((p) => p.name),
      requiredBody: body?.required ?? [],
      bodyProperties: Object.keys(body?.properties ?? {}),
      responses: Object.keys(op.responses),
    };
  }
}
const missing = OPERATIONS.filter((id) => !(id in out));
if (missing.length) throw new Error(`not in the description: ${missing.join(", ")}`);
writeFileSync(
  new URL("../test/fixtures/github-rest/operations.json", import.meta.url),
  `${JSON.stringify({ source: `github/rest-api-description api.github.com.json, info.version ${description.info.version}${version ? `, from @octokit/openapi@${version}` : ""}`, operations: out }, null, 2)}\n`,
);
console.log(`wrote ${Object.keys(out).length} operations`);
