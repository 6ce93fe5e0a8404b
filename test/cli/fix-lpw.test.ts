// `autogen fix` with an LLM endpoint: LPW over the real SDK (answers scripted over HTTP),
// a transcript written, and the same run replayed offline from it.
import { mkdtempSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readTranscript } from "../../src/llm/transcript.ts";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const DATA = mkdtempSync(join(tmpdir(), "autogen-data-"));
const BASE_ENV = { PATH: process.env.PATH, HOME: process.env.HOME, XDG_DATA_HOME: DATA };

const REPO = {
  ".github/autogen.yml":
    'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n',
  "shop/__init__.py": "",
  "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n",
};
const ANSWERS = [
  { stage: "plan", content: { steps: ["Sum the prices", "Subtract the discount"] } },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "test_total_applies_discount",
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
  // Once fixed: the calls the model writes from the issue (the behaviour table).
  {
    stage: "behaviour-calls",
    content: {
      module: "shop.cart",
      calls: [{ call: "total([10, 20], 5)", expected: "25", why: "the reported case" }],
    },
  },
];

describe("autogen fix with an LLM endpoint", () => {
  it("runs LPW, records a transcript, commits the fix, and replays the run offline", async () => {
    scriptAnswers(ANSWERS);
    const repo = await gitRepo(REPO);
    const env = { ...BASE_ENV, AUTOGEN_LLM_BASE_URL: LLM_BASE, OPENAI_API_KEY: "sk-test-key" };
    const first = await runCli(["fix", repo, "--issue", "Discount is added", "--json"], { env });
    expect(first.stderr).toBe("");
    expect(first.code).toBe(0);
    const outcome = JSON.parse(first.stdout) as {
      strategy: string;
      plan: { steps: string[]; verified: boolean };
      cost: { llmCalls: number; promptTokens: number };
      branch: string;
      report: string;
    };
    expect(outcome).toMatchObject({
      strategy: "lpw",
      plan: { steps: ["Sum the prices", "Subtract the discount"], verified: true },
      cost: { llmCalls: 4, promptTokens: 400 },
      branch: "autogen/discount-is-added",
    });
    expect(await git(repo).show([`${outcome.branch}:shop/cart.py`])).toContain("return subtotal - discount");
    // The per-task figures: calls that reached the model by stage, tokens, the first call's time, seconds in tests.
    const { figures } = JSON.parse(first.stdout) as {
      figures: { model: { firstCallSeconds: number; firstCallAfterBaselineSeconds: number }; testSeconds: number };
    };
    expect(figures).toMatchObject({
      model: {
        calls: 4,
        callsByStage: { plan: 1, "verify-plan": 1, implement: 1, "behaviour-calls": 1 },
        cachedCalls: 0,
        promptTokens: 400,
        completionTokens: 80,
      },
    });
    expect(figures.model.firstCallSeconds).toBeGreaterThan(0);
    // Timed from the baseline run's end too: never later than from the task's start.
    expect(figures.model.firstCallAfterBaselineSeconds).toBeGreaterThanOrEqual(0);
    expect(figures.model.firstCallAfterBaselineSeconds).toBeLessThanOrEqual(figures.model.firstCallSeconds);
    expect(figures.testSeconds).toBeGreaterThan(0);
    const report = await readFile(outcome.report, "utf8");
    expect(report).toContain(
      "Plan (verified on the visible tests in 1 round(s)):\n\n1. Sum the prices\n2. Subtract the discount",
    );
    expect(report).toContain("| test_total_applies_discount | 25 | 25 | ✅ |");
    // No reproduction stage (the failing test was there): the behaviour calls were asked for once the fix passed.
    expect(report).toContain("call(s) of `shop.cart` from the issue, shown the fix;");

    const dir = join(repo, ".git", "autogen", "transcripts");
    const [file] = await readdir(dir);
    const path = join(dir, file ?? "");
    expect(readTranscript(path).map((e) => e.stage)).toEqual(["plan", "verify-plan", "implement", "behaviour-calls"]);

    // Offline: no HTTP mock is registered now; the transcript answers.
    const again = await gitRepo(REPO);
    const replay = await runCli(["fix", again, "--issue", "Discount is added", "--replay", path, "--json"], {
      env: BASE_ENV,
    });
    expect(replay.code).toBe(0);
    expect(JSON.parse(replay.stdout)).toMatchObject({
      strategy: "lpw",
      status: "fixed",
      cost: { llmCalls: 4, promptTokens: 400 },
    });
  });

  it("prints the task's figures under the summary: calls by stage, tokens, first model call, seconds in tests", async () => {
    scriptAnswers(ANSWERS);
    const repo = await gitRepo(REPO);
    const { code, stdout } = await runCli(["fix", repo, "--issue", "Discount is added"], {
      env: { ...BASE_ENV, AUTOGEN_LLM_BASE_URL: LLM_BASE, OPENAI_API_KEY: "sk-test-key" },
    });
    expect(code).toBe(0);
    expect(stdout).toMatch(
      /\nmodel: 4 calls \(plan 1, verify-plan 1, implement 1, behaviour-calls 1\); 400 prompt \+ 80 completion tokens; first model call after \d+\.\d s \(\d+\.\d s after the baseline\); tests \d+\.\d s\n$/,
    );
  });

  it("offers the plans of fixes accepted with --remember to later plan stages of the same repository", async () => {
    const env = {
      ...BASE_ENV,
      XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
      AUTOGEN_LLM_BASE_URL: LLM_BASE,
    };
    const repo = await gitRepo(REPO);
    scriptAnswers(ANSWERS);
    expect(
      (await runCli(["fix", repo, "--issue", "Discount is added to the cart total", "--remember"], { env })).code,
    ).toBe(0);
    await git(repo).raw(["checkout", "-q", "-b", "next"]);
    const { requests } = scriptAnswers(ANSWERS);
    expect(
      (await runCli(["fix", repo, "--issue", "The cart total gets the discount wrong", "--json"], { env })).code,
    ).toBe(0);
    expect(requests[0]?.messages[1]?.content).toContain(
      "Example 1: Discount is added to the cart total\nPlan:\n1. Sum the prices\n2. Subtract the discount",
    );
  });

  it("with templateFirstPass (the default), the model starts at once: its plan fixes the bug and no template edit is tried", async () => {
    scriptAnswers(ANSWERS);
    const repo = await gitRepo({
      ...REPO,
      ".github/autogen.yml": 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n',
    });
    const env = { ...BASE_ENV, AUTOGEN_LLM_BASE_URL: LLM_BASE };
    const { code, stdout } = await runCli(["fix", repo, "--json"], { env });
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout) as {
      strategy: string;
      cost: { llmCalls: number };
      attempts: Array<{ description: string }>;
    };
    expect(outcome).toMatchObject({ strategy: "lpw", status: "fixed", cost: { llmCalls: 4 } });
    expect(outcome.attempts.map((a) => a.description)).toEqual(["implementation of the plan"]);
  });
});
