// `autogen fix --issue` on a repository whose one red test is flaky: it fails in the
// baseline run of the whole suite and passes when run again (boltons' socket test on a
// loaded machine did this in bench:upstream). The baseline's failure is not the issue's, so
// the bot reproduces the issue and fixes it, instead of stopping with "nothing to fix"
// before asking the model anything. Answers scripted over HTTP, the real SDK and pytest.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../src/engine/task.ts";
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

/** Fails on its first run only: the mark it leaves (ignored by git) makes every later run in that worktree pass. */
const FLAKY_REPO = {
  ".gitignore": ".clock-ran\n",
  ".github/autogen.yml": 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n',
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_without_discount():\n    assert total([1, 2], 0) == 3\n",
  "tests/test_clock.py":
    'import pathlib\n\nMARK = pathlib.Path(__file__).parent.parent / ".clock-ran"\n\n\ndef test_clock():\n    first = not MARK.exists()\n    MARK.touch()\n    assert not first, "the server did not answer in time"\n',
};
const ISSUE =
  "The discount is added to the cart total\n\n`total([10, 20], 5)` returns 35; a discount must be subtracted, so it should be 25.";

const ANSWERS = [
  {
    stage: "reproduce",
    content: {
      path: "tests/test_discount.py",
      content: "from shop.cart import total\n\n\ndef test_discount():\n    assert total([10, 20], 5) == 25\n",
      expectedFailure: "assert 35 == 25",
      // With the test: the calls the behaviour table runs once a fix passes.
      behaviour: {
        module: "shop.cart",
        calls: [{ call: "total([10, 20], 5)", expected: "25", why: "the reported case" }],
      },
    },
  },
  { stage: "plan", content: { steps: ["Sum the prices", "Subtract the discount"] } },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "test_discount",
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

describe("autogen fix --issue when the baseline's only failure is flaky", { timeout: 300_000 }, () => {
  it("reproduces the issue once the failing test passes on its own, and fixes it", async () => {
    const { requests } = scriptAnswers(ANSWERS);
    const repo = await gitRepo(FLAKY_REPO);
    const { code, stdout } = await runCli(["fix", repo, "--issue", ISSUE, "--json"], { env: ENV });
    const outcome = JSON.parse(stdout) as Outcome;
    // Without the fall-back: not-fixed, "nothing-to-fix", no model call.
    expect(outcome).toMatchObject({ status: "fixed", strategy: "lpw" });
    expect(code).toBe(0);
    expect(outcome.evidence.reproduction).toMatchObject({
      path: "tests/test_discount.py",
      testId: "tests/test_discount.py::test_discount",
    });
    expect(outcome.changedFiles).toEqual(["shop/cart.py", "tests/test_discount.py"]);
    expect(requests.map((r) => r.response_format.json_schema.name)).toEqual([
      "reproduce",
      "plan",
      "verify_plan",
      "implement",
    ]);
    expect(outcome.behaviour).toMatchObject({
      kind: "table",
      written: "before-fix",
      rows: [{ after: "25", flag: "ok" }],
    });
  });
});
