// `autogen fix --issue` on repositories whose tests all pass, with the DEFAULT
// configuration (template first pass on): the model writes a reproduction test (answers
// scripted over HTTP, the real SDK), the bot runs it with the real pytest / node --test and
// takes the failing ids from the runner, then the fix is made and committed together with
// the new test. Also: a test that fails for the wrong reason is rejected and retried, an
// issue that cannot be reproduced stops with "could not reproduce", and a broken test
// command stops before any model call.
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../src/engine/task.ts";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
  AUTOGEN_LLM_BASE_URL: LLM_BASE,
  OPENAI_API_KEY: "sk-test-key",
};
// Only what the sandbox needs: no strategy settings, so templateFirstPass stays on (the default).
const PY_CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';

const PY_REPO = {
  ".github/autogen.yml": PY_CONFIG,
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "shop/labels.py": "def label(name):\n    return name.title()\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
  "tests/test_labels.py": "from shop.labels import label\n\n\ndef test_label():\n    assert label('tea') == 'Tea'\n",
};
const PY_ISSUE =
  "The discount is added to the cart total\n\n`total([10, 20], 5)` returns 35; a discount must be subtracted, so it should be 25.";
// The model imports a module that does not exist: the test fails, but not because of the bug.
const PY_IMPORT_ERROR = {
  stage: "reproduce",
  content: {
    path: "tests/test_discount.py",
    content: "from shop.pricing import total\n\n\ndef test_discount():\n    assert total([10, 20], 5) == 25\n",
    expectedFailure: "assert 35 == 25",
  },
};
// Parametrised; the model's own id (which the bot ignores) names the test without its parameters.
const PY_PARAMETRISED = {
  stage: "reproduce",
  content: {
    path: "tests/test_discount.py",
    content:
      "import pytest\n\nfrom shop.cart import total\n\n\n@pytest.mark.parametrize('prices, discount, expected', [([10, 20], 5, 25), ([7], 2, 5)])\ndef test_total_subtracts_discount(prices, discount, expected):\n    assert total(prices, discount) == expected\n",
    testId: "tests/test_discount.py::test_total_subtracts_discount",
    expectedFailure: "assert 35 == 25",
    // Calls that break their schema (none given): the test is kept, the behaviour check asks for its own after the fix.
    behaviour: { module: "shop.cart", calls: [] },
  },
};

const PY_FIX = [
  // Once fixed: the calls the model writes from the issue and the fix (the behaviour table), asked for
  // because those of the reproduce answer were unusable.
  {
    stage: "behaviour-calls",
    content: {
      module: "shop.cart",
      calls: [{ call: "total([10, 20], 5)", expected: "25", why: "the reported case" }],
    },
  },
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

type CliOutcome = Outcome & { branch?: string; report: string };

describe(
  "autogen fix --issue on a Python repository whose tests all pass (default config)",
  { timeout: 300_000 },
  () => {
    it("reproduces (rejecting an ImportError and retrying), fixes, and commits the new test with the fix", async () => {
      const { requests } = scriptAnswers([PY_IMPORT_ERROR, PY_PARAMETRISED, ...PY_FIX]);
      const repo = await gitRepo(PY_REPO);
      const { code, stdout, stderr } = await runCli(["fix", repo, "--issue", PY_ISSUE, "--json"], { env: ENV });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const outcome = JSON.parse(stdout) as CliOutcome;
      // After the reproduction the model plans at once (the template pass would only run if it found no fix).
      expect(outcome).toMatchObject({ status: "fixed", strategy: "lpw", cost: { llmCalls: 6 } });
      expect(outcome.evidence.reproduction).toEqual({
        path: "tests/test_discount.py",
        testId: "tests/test_discount.py::test_total_subtracts_discount[prices0-5-25]",
        testIds: [
          "tests/test_discount.py::test_total_subtracts_discount[prices0-5-25]",
          "tests/test_discount.py::test_total_subtracts_discount[prices1-2-5]",
        ],
        failure: "assert 35 == 25",
        attempts: 2,
      });
      expect(outcome.changedFiles).toEqual(["shop/cart.py", "tests/test_discount.py"]);
      expect(outcome.policy).toMatchObject({ ok: true, tampering: [] });

      // The first prompt showed the located code and the repository's tests; the second said why the first test was refused.
      const first = requests[0]?.messages[1]?.content ?? "";
      expect(first).toContain("--- shop/cart.py\n1|def total(prices, discount):");
      expect(first).toContain("--- tests/test_cart.py\nfrom shop.cart import total");
      // No earlier attempt: that section is left out; the system prompt asks for Python behaviour calls with the test.
      expect(first).not.toContain("Earlier attempts");
      expect(requests[0]?.messages[0]?.content).toContain("Each call is one Python expression evaluated with");
      const second = requests[1]?.messages[1]?.content ?? "";
      expect(second).toContain(
        "Attempt 1 was rejected: tests/test_discount.py::tests.test_discount the test file did not load: ModuleNotFoundError: No module named 'shop.pricing'",
      );

      const branch = outcome.branch ?? "";
      expect(await git(repo).show([`${branch}:shop/cart.py`])).toContain("return subtotal - discount");
      expect(await git(repo).show([`${branch}:tests/test_discount.py`])).toBe(PY_PARAMETRISED.content.content);
      const report = await readFile(outcome.report, "utf8");
      expect(report).toContain(
        "(**new test file** `tests/test_discount.py`, written by autogen-bot from the issue (accepted on attempt 2)) failed on the unchanged code: assert 35 == 25",
      );
      // The reproduce answer's calls broke their schema: set aside, said in the report, and asked for once the fix passed.
      expect(requests.map((r) => r.response_format.json_schema.name)).toEqual([
        "reproduce",
        "reproduce",
        "plan",
        "verify_plan",
        "implement",
        "behaviour_calls",
      ]);
      expect(outcome.behaviour).toMatchObject({
        kind: "table",
        written: "after-fix",
        setAside: "they broke their schema: behaviour.calls: Too small: expected array to have >=1 items",
        rows: [{ call: "total([10, 20], 5)", before: "35", after: "25", flag: "ok" }],
      });
      expect(report).toContain(
        "- The calls written with the reproduction test were not used (they broke their schema: behaviour.calls: Too small: expected array to have &gt;=1 items): these were asked for once the fix passed.",
      );
      expect(report).toContain(
        "| `tests/test_discount.py::test_total_subtracts_discount[prices0-5-25]` (new) | ❌ fail | ✅ pass |",
      );
    });

    it("an issue that cannot be reproduced stops with 'could not reproduce' after three tries, and no branch", async () => {
      const passing = {
        stage: "reproduce",
        content: {
          path: "tests/test_discount.py",
          content: "from shop.cart import total\n\n\ndef test_discount():\n    assert total([10, 20], 0) == 30\n",
          expectedFailure: "assert 35 == 25",
        },
      };
      scriptAnswers([passing, passing, passing]);
      const repo = await gitRepo(PY_REPO);
      const { code, stdout } = await runCli(["fix", repo, "--issue", PY_ISSUE], { env: ENV });
      expect(code).toBe(1);
      expect(stdout).toContain(
        "not fixed (not-reproduced): could not reproduce: all 3 tests the model wrote were rejected; the last: its test(s) pass on the unchanged code (tests/test_discount.py::test_discount), so they do not show the bug",
      );
      expect((await git(repo).raw(["branch", "--list", "autogen/*"])).trim()).toBe("");
      expect((await git(repo).raw(["status", "--porcelain"])).trim()).toBe("");
    });
  },
);

const JS_REPO = {
  "package.json": JSON.stringify({ name: "flags", private: true, type: "module", scripts: { test: "node --test" } }),
  "src/flags.js":
    'export function parseFlag(arg) {\n  const [name, value] = arg.slice(2).split("=");\n  return { name, value };\n}\n',
  "src/help.js": 'export function usage() {\n  return "usage: tool [--name=value]";\n}\n',
  "test/flags.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { parseFlag } from "../src/flags.js";\n\ntest("short flag value", () => {\n  assert.deepEqual(parseFlag("--name=a"), { name: "name", value: "a" });\n});\n',
};
const JS_ISSUE =
  "A long flag value containing = is cut off\n\n`parseFlag('--query=a=b')` gives the value `a`; everything after the first `=` is the value, so it should be `a=b`.";
const JS_REPRO = {
  stage: "reproduce",
  content: {
    path: "test/parse-equals-value.test.js",
    content:
      'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { parseFlag } from "../src/flags.js";\n\ntest("long flag value containing = is kept whole", () => {\n  assert.deepEqual(parseFlag("--query=a=b"), { name: "query", value: "a=b" });\n});\n',
    // Not the runner's format (node --test reports "test/parse-equals-value.test.js > test > …"); the bot does not use it.
    testId: "long flag value containing = is kept whole",
    expectedFailure: "Expected values to be strictly deep-equal",
    // With the test, before any fix: the calls the behaviour table runs (by the Node harness) once a fix passes.
    behaviour: {
      module: "src/flags.js",
      calls: [
        { call: 'parseFlag("--query=a=b")', expected: '({ name: "query", value: "a=b" })', why: "the reported case" },
        { call: 'parseFlag("--name=a")', expected: "unspecified", why: "a value without = behaves as before" },
      ],
    },
  },
};
const JS_FIX = [
  {
    stage: "plan",
    content: {
      steps: [
        "Split the argument at the first = only",
        "Return the name before it and everything after it as the value",
      ],
    },
  },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "long flag value containing = is kept whole",
          steps: [
            { step: 1, value: "query | a=b" },
            { step: 2, value: "{ name: query, value: a=b }" },
          ],
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

describe(
  "autogen fix --issue on a JavaScript repository whose tests all pass (default config)",
  { timeout: 300_000 },
  () => {
    it("reproduces with the runner's own test id, LPW fixes, and the new test is committed", async () => {
      const { requests } = scriptAnswers([JS_REPRO, ...JS_FIX]);
      const repo = await gitRepo(JS_REPO);
      const { code, stdout, stderr } = await runCli(["fix", repo, "--issue", JS_ISSUE, "--json"], { env: ENV });
      expect(stderr).toBe("");
      expect(code).toBe(0);
      const outcome = JSON.parse(stdout) as CliOutcome;
      // Four calls: the behaviour calls came with the reproduction test, so no call of their own after the fix.
      expect(outcome).toMatchObject({ status: "fixed", strategy: "lpw", cost: { llmCalls: 4 } });
      expect(requests.map((r) => r.response_format.json_schema.name)).toEqual([
        "reproduce",
        "plan",
        "verify_plan",
        "implement",
      ]);
      // The fix's behaviour table, from the Node harness on the code before and after.
      expect(outcome.behaviour).toMatchObject({
        kind: "table",
        module: "src/flags.js",
        written: "before-fix",
        rows: [
          { before: "{ name: 'query', value: 'a' }", after: "{ name: 'query', value: 'a=b' }", flag: "ok" },
          { before: "{ name: 'name', value: 'a' }", after: "{ name: 'name', value: 'a' }", flag: "ok" },
        ],
      });
      expect(outcome.evidence.reproduction).toMatchObject({
        testIds: ["test/parse-equals-value.test.js > test > long flag value containing = is kept whole"],
        attempts: 1,
      });
      expect(outcome.changedFiles).toEqual(["src/flags.js", "test/parse-equals-value.test.js"]);
      expect(requests[0]?.messages[1]?.content).toContain("--- src/flags.js\n1|export function parseFlag(arg) {");
      // The plan stage saw the reproduction test failing, under the runner's id.
      expect(requests[1]?.messages[1]?.content).toContain(
        "test/parse-equals-value.test.js > test > long flag value containing = is kept whole",
      );
      const branch = outcome.branch ?? "";
      expect(await git(repo).show([`${branch}:test/parse-equals-value.test.js`])).toBe(JS_REPRO.content.content);
      expect(await git(repo).show([`${branch}:src/flags.js`])).toContain('arg.indexOf("=")');
      const report = await readFile(outcome.report, "utf8");
      expect(report).toContain(
        "The model wrote 2 call(s) of `src/flags.js` from the issue with the reproduction test, before any fix existed;",
      );
      expect(report).toContain(
        "| ✅ | <code>parseFlag(\"--query=a=b\")</code> | <code>{ name: 'query', value: 'a' }</code> | <code>{ name: 'query', value: 'a=b' }</code> |",
      );
      // The reproduce prompt asked for JavaScript calls, with the harness's rules for them.
      expect(requests[0]?.messages[0]?.content).toContain("Each call is one JavaScript expression evaluated with");
      expect(requests[0]?.messages[0]?.content).toContain("A call is one expression: no statements");
    });

    it("a broken test command (node --test test/ loads the folder as a module) stops before any model call", async () => {
      const repo = await gitRepo({
        ...JS_REPO,
        "package.json": JSON.stringify({
          name: "flags",
          private: true,
          type: "module",
          scripts: { test: "node --test test/" },
        }),
      });
      const { code, stderr } = await runCli(["fix", repo, "--issue", JS_ISSUE], { env: ENV });
      expect(code).toBe(1);
      expect(stderr).toContain(
        "autogen fix: the test command is broken: test > test: test is a folder, loaded as a module (the command names a folder where node --test wants files or globs)",
      );
      expect((await git(repo).raw(["branch", "--list", "autogen/*"])).trim()).toBe("");
    });

    it("with the failing test named (as CI names it in a red build), the engine itself stops on the broken command before any model call", async () => {
      const repo = await gitRepo({
        ...JS_REPO,
        "package.json": JSON.stringify({
          name: "flags",
          private: true,
          type: "module",
          scripts: { test: "node --test test/" },
        }),
      });
      const { code, stdout } = await runCli(["fix", repo, "--issue", JS_ISSUE, "--test", "test > test", "--json"], {
        env: ENV,
      });
      expect(code).toBe(1);
      const outcome = JSON.parse(stdout) as CliOutcome;
      // The baseline run comes before the plan stage, so the model is never asked.
      expect(outcome).toMatchObject({
        strategy: "lpw",
        status: "not-fixed",
        stopReason: "broken-tests",
        cost: { llmCalls: 0 },
      });
      expect(outcome.message).toBe(
        "the test command is broken: test > test: test is a folder, loaded as a module (the command names a folder where node --test wants files or globs)",
      );
    });
  },
);
