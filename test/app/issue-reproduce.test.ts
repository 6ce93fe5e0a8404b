// End to end through the App with the DEFAULT strategy configuration (LPW, its template
// pass on, after the model's own stages): an issue labelled `autogen` on a repository whose tests all pass. Real Probot and
// webhook payloads from @octokit/webhooks-examples, GitHub faked at the HTTP level, git
// pushes into a local bare repository, real pytest / node --test runs, model answers
// scripted over HTTP. Each test gets two minutes: several real test runs on a shared machine.
import { execFileSync } from "node:child_process";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Probot } from "probot";
import { TestOctokit } from "../support/test-octokit.ts";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createAutogenApp } from "../../src/app/create-app.ts";
import { JobStore } from "../../src/jobs/job-store.ts";
import type { WorkerPool } from "../../src/jobs/worker-pool.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { fakeGitHub, type FakeGitHubState } from "../support/fake-github.ts";
import { gitRepo } from "../support/git-repo.ts";
import { scriptAnswers, testLlm, type ScriptedAnswer } from "../support/llm-mock.ts";
import { networkGuard } from "../support/network-guard.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { webhookExample } from "../support/webhook-examples.ts";

// Only the sandbox setting: the strategy section is left at its defaults.
const PY_CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
const PY_FILES = {
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
};
const PY_ISSUE = {
  title: "The discount is added to the cart total",
  body: "`total([10, 20], 5)` returns 35; a discount must be subtracted, so it should be 25.",
};
const PY_IMPORT_ERROR = {
  stage: "reproduce",
  content: {
    path: "tests/test_discount.py",
    content: "from shop.pricing import total\n\n\ndef test_discount():\n    assert total([10, 20], 5) == 25\n",
    expectedFailure: "assert 35 == 25",
  },
};
const PY_REPRO = {
  stage: "reproduce",
  content: {
    path: "tests/test_discount.py",
    content:
      "import pytest\n\nfrom shop.cart import total\n\n\n@pytest.mark.parametrize('prices, discount, expected', [([10, 20], 5, 25)])\ndef test_total_subtracts_discount(prices, discount, expected):\n    assert total(prices, discount) == expected\n",
    testId: "test_total_subtracts_discount",
    expectedFailure: "assert 35 == 25",
    // With the test: the calls the behaviour table runs once a fix passes (written from the issue, before any fix).
    behaviour: {
      module: "shop.cart",
      calls: [{ call: "total([10, 20], 5)", expected: "25", why: "the reported case" }],
    },
  },
};

// After the reproduction the model plans at once; the template pass would run only if it found no fix.
const PY_FIX = [
  { stage: "plan", content: { steps: ["Sum the prices", "Subtract the discount"] } },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "test_total_subtracts_discount",
          steps: [
            { step: 1, value: "30" },
            { step: 2, value: "25" },
          ],
          derived: "25",
          expected: "25",
          matches: true,
        },
      ],
    },
  },
  {
    stage: "implement",
    content: {
      edits: [
        {
          kind: "replace",
          path: "shop/cart.py",
          search: "return subtotal + discount",
          replace: "return subtotal - discount",
        },
      ],
    },
  },
];

const JS_FILES = {
  "package.json": JSON.stringify({ name: "flags", private: true, type: "module", scripts: { test: "node --test" } }),
  "src/flags.js":
    'export function parseFlag(arg) {\n  const [name, value] = arg.slice(2).split("=");\n  return { name, value };\n}\n',
  "test/flags.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { parseFlag } from "../src/flags.js";\n\ntest("short flag value", () => {\n  assert.deepEqual(parseFlag("--name=a"), { name: "name", value: "a" });\n});\n',
};
const JS_ISSUE = {
  title: "A long flag value containing = is cut off",
  body: "`parseFlag('--query=a=b')` gives the value `a`; everything after the first `=` is the value, so it should be `a=b`.",
};
const JS_ANSWERS = [
  {
    stage: "reproduce",
    content: {
      path: "test/parse-equals-value.test.js",
      content:
        'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { parseFlag } from "../src/flags.js";\n\ntest("long flag value containing = is kept whole", () => {\n  assert.deepEqual(parseFlag("--query=a=b"), { name: "query", value: "a=b" });\n});\n',
      testId: "long flag value containing = is kept whole",
      expectedFailure: "Expected values to be strictly deep-equal",
      // With the test: the calls the behaviour table runs (by the Node harness) once a fix passes.
      behaviour: {
        module: "src/flags.js",
        calls: [
          { call: 'parseFlag("--query=a=b")', expected: '({ name: "query", value: "a=b" })', why: "the reported case" },
          { call: 'parseFlag("--name=a")', expected: "unspecified", why: "a value without = behaves as before" },
        ],
      },
    },
  },
  {
    stage: "plan",
    content: {
      steps: ["Split the argument at the first = only", "Return the name before it and the rest as the value"],
    },
  },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "long flag value containing = is kept whole",
          steps: [{ step: 1, value: "query | a=b" }],
          derived: "a=b",
          expected: "a=b",
          matches: true,
        },
      ],
    },
  },
  {
    stage: "implement",
    content: {
      edits: [
        {
          kind: "replace",
          path: "src/flags.js",
          search: '  const [name, value] = arg.slice(2).split("=");\n',
          replace:
            '  const at = arg.indexOf("=");\n  const [name, value] = at < 0 ? [arg.slice(2), undefined] : [arg.slice(2, at), arg.slice(at + 1)];\n',
        },
      ],
    },
  },
];

let remote: string;
let state: FakeGitHubState;
let github: ReturnType<typeof fakeGitHub>;
let store: JobStore;
let root: string;
const network = networkGuard();

beforeEach(async () => {
  network.start();
  root = await mkdtemp(join(tmpdir(), "autogen-app-"));
  store = new JobStore(join(root, "jobs.db"));
});

afterEach(() => {
  const { unmatched, unused } = network.stop();
  store.close();
  expect(github.errors, "requests that do not fit GitHub's REST description").toEqual([]);
  expect(unmatched, "requests nothing answered").toEqual([]);
  expect(unused, "scripted model answers never used").toEqual([]);
});

async function repository(
  files: Record<string, string>,
  config: string | undefined,
  issue: { title: string; body: string },
) {
  const work = await gitRepo({ ...files, ...(config === undefined ? {} : { ".github/autogen.yml": config }) });
  remote = join(root, "remote.git");
  execFileSync("git", ["clone", "--quiet", "--bare", work, remote]);
  state = {
    issue: { ...issue },
    comments: [],
    pulls: [],
    permissions: { maintainer: "write" },
    files: config === undefined ? {} : { ".github/autogen.yml": config },
    defaultBranch: "main",
    cloneUrl: remote,
  };
  github = fakeGitHub(state);
}

async function labelIssue(issue: { title: string; body: string }, answers: ScriptedAnswer[]) {
  const { requests } = scriptAnswers(answers);
  let pool: WorkerPool | undefined;
  const probot = new Probot({
    appId: 1,
    privateKey: testPrivateKey(),
    secret: "s",
    logLevel: "fatal",
    Octokit: TestOctokit,
  });
  await probot.load(
    createAutogenApp({
      store,
      cacheRoot: join(root, "cache"),
      scrub: secretScrubber([testPrivateKey(), "sk-test-key"]),
      concurrency: 1,
      perInstallation: 1,
      statusThrottleMs: 60_000,
      llmFor: () => testLlm(),
      onReady: (p) => (pool = p),
    }),
  );
  const payload = webhookExample("issues", "labeled") as Record<string, unknown> & {
    repository: Record<string, unknown>;
    issue: Record<string, unknown>;
  };
  payload.repository = {
    ...payload.repository,
    name: "shop",
    full_name: "octo-org/shop",
    default_branch: "main",
    owner: { ...(payload.repository.owner as object), login: "octo-org" },
  };
  payload.issue = { ...payload.issue, number: 42, title: issue.title, body: issue.body };
  payload.label = { ...(payload.label as object), name: "autogen" };
  payload.sender = { ...(payload.sender as object), login: "maintainer", id: 7, type: "User" };
  payload.installation = { id: 99, node_id: "MDIz" };
  await probot.receive({ id: "delivery-repro", name: "issues", payload } as never);
  await pool?.idle();
  return { requests, status: state.comments[0]?.body ?? "" };
}

const remoteFile = (branch: string, path: string) =>
  execFileSync("git", ["--git-dir", remote, "show", `${branch}:${path}`], { encoding: "utf8" });
const remoteBranches = () =>
  execFileSync("git", ["--git-dir", remote, "branch", "--format=%(refname:short)"], { encoding: "utf8" })
    .trim()
    .split("\n");

describe("an issue whose tests all pass, labelled autogen (default configuration)", { timeout: 300_000 }, () => {
  it("Python: rejects a reproduction that fails with an ImportError, retries, fixes, and opens a PR containing the new test", async () => {
    await repository(PY_FILES, PY_CONFIG, PY_ISSUE);
    const { requests, status } = await labelIssue(PY_ISSUE, [PY_IMPORT_ERROR, PY_REPRO, ...PY_FIX]);
    expect(requests[1]?.messages[1]?.content).toContain(
      "Attempt 1 was rejected: tests/test_discount.py::tests.test_discount the test file did not load: ModuleNotFoundError: No module named 'shop.pricing'",
    );
    expect(state.pulls).toHaveLength(1);
    expect(status).toContain(`Opened https://github.com/o/r/pull/${state.pulls[0]?.number}`);
    expect(remoteFile("autogen/issue-42", "shop/cart.py")).toContain("return subtotal - discount");
    expect(remoteFile("autogen/issue-42", "tests/test_discount.py")).toBe(PY_REPRO.content.content);
    const body = state.pulls[0]?.body ?? "";
    // The runner's parametrised id, not the model's.
    expect(body).toContain(
      "Reproduction test `tests/test_discount.py::test_total_subtracts_discount[prices0-5-25]` (**new test file** `tests/test_discount.py`, written by autogen-bot from the issue (accepted on attempt 2))",
    );
    expect(body).toContain(
      "| `tests/test_discount.py::test_total_subtracts_discount[prices0-5-25]` (new) | ❌ fail | ✅ pass |",
    );
    expect(body).toContain("- No protected path touched, within the diff budget, and no test weakened");
    expect(body).toContain("Closes #42");
    expect(body).toContain(
      "| ✅ | <code>total([10, 20], 5)</code> | <code>35</code> | <code>25</code> | <code>25</code> |",
    );
    // The behaviour calls came with the accepted reproduction test: no call of their own after the fix.
    expect(body).toContain("from the issue with the reproduction test, before any fix existed;");
    expect(requests.map((r) => r.response_format.json_schema.name)).toEqual([
      "reproduce",
      "reproduce",
      "plan",
      "verify_plan",
      "implement",
    ]);
  });

  it("JavaScript: reproduces under node --test's own id, LPW fixes, and the PR contains the new test", async () => {
    await repository(JS_FILES, undefined, JS_ISSUE);
    const { requests } = await labelIssue(JS_ISSUE, JS_ANSWERS);
    expect(requests.map((r) => r.response_format.json_schema.name)).toEqual([
      "reproduce",
      "plan",
      "verify_plan",
      "implement",
    ]);
    expect(state.pulls).toHaveLength(1);
    expect(remoteFile("autogen/issue-42", "test/parse-equals-value.test.js")).toContain(
      "long flag value containing = is kept whole",
    );
    expect(remoteFile("autogen/issue-42", "src/flags.js")).toContain('arg.indexOf("=")');
    expect(state.pulls[0]?.body).toContain(
      "Reproduction test `test/parse-equals-value.test.js > test > long flag value containing = is kept whole` (**new test file**",
    );
    expect(state.pulls[0]?.body).toContain(
      `| ✅ | <code>parseFlag("--query=a=b")</code> | <code>{ name: 'query', value: 'a' }</code> | <code>{ name: 'query', value: 'a=b' }</code> |`,
    );
  });

  it("an issue that cannot be reproduced: 'could not reproduce' in the status comment, no branch, no PR", async () => {
    await repository(PY_FILES, PY_CONFIG, PY_ISSUE);
    const passing = {
      stage: "reproduce",
      content: {
        path: "tests/test_discount.py",
        content: "from shop.cart import total\n\n\ndef test_discount():\n    assert total([10, 20], 0) == 30\n",
        expectedFailure: "assert 35 == 25",
      },
    };
    const { status } = await labelIssue(PY_ISSUE, [passing, passing, passing]);
    expect(status).toContain(
      "Stopped without a fix (`not-reproduced`): could not reproduce: all 3 tests the model wrote were rejected; the last: its test(s) pass on the unchanged code",
    );
    expect(state.pulls).toEqual([]);
    expect(remoteBranches()).toEqual(["main"]);
  });

  it("a broken test command: 'the test command is broken' before any model call, no PR", async () => {
    await repository(
      {
        ...JS_FILES,
        "package.json": JSON.stringify({
          name: "flags",
          private: true,
          type: "module",
          scripts: { test: "node --test test/" },
        }),
      },
      undefined,
      JS_ISSUE,
    );
    const { requests, status } = await labelIssue(JS_ISSUE, []);
    expect(requests).toEqual([]);
    expect(status).toContain(
      "Stopped without a fix (`broken-tests`): the test command is broken: test > test: test is a folder, loaded as a module",
    );
    expect(state.pulls).toEqual([]);
    expect(remoteBranches()).toEqual(["main"]);
  });
});
