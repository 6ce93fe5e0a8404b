// Red team: a secret of the bot's environment that ends up in a prompt (a test that leaks it
// into its output, a hostile repository file, an issue quoting it) never reaches the model,
// whichever door the job came through: `autogen fix`, `autogen eval`, the App (issue job and
// red-build repair share its per-job client) and the Action. The canary is sent through each
// door's own client, over the real SDK to a scripted endpoint, and looked for in what arrived
// and in what was recorded.
import { mkdtempSync, readdirSync, readFileSync } from "node:fs";
import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { readActionInputs } from "../../src/action/action-inputs.ts";
import { actionLlmFor, actionScrubber } from "../../src/action/run-action.ts";
import { appFromConfig } from "../../src/app/app-from-config.ts";
import { loadServerConfig } from "../../src/config/env-config.ts";
import { dropSecretsFromEnvironment } from "../../src/secrets/drop-secrets.ts";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import type { Job } from "../../src/jobs/store.ts";
import type { LlmClient } from "../../src/llm/llm-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { testPrivateKey } from "../support/private-key.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const CANARY = "canary-7f3a9c2e51d04b8a";
const DATA = mkdtempSync(join(tmpdir(), "autogen-doors-"));
const MARKER = "[secret removed]";

/** What the model received: every message of every request. */
const sent = (requests: Array<{ messages: Array<{ content: string }> }>) =>
  requests.flatMap((r) => r.messages.map((m) => m.content)).join("\n");

function filesUnder(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), "utf8"))
    .join("\n");
}

/** One `generate` call through a door's client, with the canary in the failures text (what a test printing its environment gives). */
async function callWithCanary(llm: LlmClient | undefined, secret: string): Promise<string> {
  expect(llm, "the door built no model client").toBeDefined();
  const { requests } = scriptAnswers([{ stage: "generate", content: { edits: [] } }]);
  await llm?.call(
    "generate",
    {
      untrusted: {
        problem: "the total is wrong",
        failures: `AssertionError\nenv: SECRET=${secret}`,
        code: "def total(): ...",
      },
    },
    z.unknown(),
  );
  expect(requests).toHaveLength(1);
  return sent(requests);
}

describe("every door's model client scrubs the bot's secrets", () => {
  it("autogen fix: a canary in the issue text is removed from every request and from the transcript", async () => {
    const repo = await gitRepo({
      ".github/autogen.yml":
        'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n',
      "shop/__init__.py": "",
      "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
      "tests/test_cart.py":
        "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n",
    });
    const { requests } = scriptAnswers([
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
      // The behaviour table's calls, asked with the issue text (the canary scrubbed there too).
      {
        stage: "behaviour-calls",
        content: { module: "shop.cart", calls: [{ call: "total([10, 20], 5)", expected: "25", why: "reported" }] },
      },
    ]);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_DATA_HOME: DATA,
      AUTOGEN_LLM_BASE_URL: LLM_BASE,
      OPENAI_API_KEY: "sk-test-key",
      DEPLOY_TOKEN: CANARY,
    };
    const run = await runCli(["fix", repo, "--issue", `Discount is added (seen with DEPLOY_TOKEN=${CANARY})`], { env });
    expect(run.code).toBe(0);
    expect(requests).toHaveLength(4);
    expect(sent(requests)).not.toContain(CANARY);
    expect(sent(requests)).toContain(MARKER);
    const transcripts = filesUnder(join(repo, ".git", "autogen", "transcripts"));
    expect(transcripts).toContain(MARKER);
    expect(transcripts).not.toContain(CANARY);
  });

  it("autogen eval: a canary in a task's code is removed from the request and from the transcript", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-doors-eval-"));
    const task = {
      task_id: "Python/0",
      prompt: `\n\ndef add(a: int, b: int) -> int:\n    """ Adds. Token: ${CANARY} """\n`,
      buggy_solution: "    return a - b\n",
      canonical_solution: "    return a + b\n",
      example_test: "def check(add):\n    assert add(1, 2) == 3\ncheck(add)\n",
      test: "\n\nMETADATA = {}\n\n\ndef check(add):\n    assert add(1, 2) == 3\n    assert add(2, 2) == 4\n",
      entry_point: "add",
      bug_type: "operator misuse",
    };
    await writeFile(join(dir, "tasks.jsonl"), `${JSON.stringify(task)}\n`);
    const { requests } = scriptAnswers([
      {
        stage: "generate",
        content: { edits: [{ kind: "replace", path: "solution.py", search: "return a - b", replace: "return a + b" }] },
      },
      // The fix passes, so eval's post-check asks for the behaviour table's calls; the prompt holds the task's code.
      {
        stage: "behaviour-calls",
        content: { module: "solution", calls: [{ call: "add(1, 2)", expected: "3", why: "the task's example" }] },
      },
    ]);
    const transcripts = join(dir, "transcripts");
    const env = { AUTOGEN_LLM_BASE_URL: LLM_BASE, OPENAI_API_KEY: "sk-test-key", DEPLOY_TOKEN: CANARY };
    const run = await runCli(
      [
        "eval",
        "--dataset",
        `humanevalfix:${join(dir, "tasks.jsonl")}`,
        "--strategy",
        "direct",
        "--concurrency",
        "1",
        "--candidates",
        "1",
        "--transcripts",
        transcripts,
        "--out",
        join(dir, "out"),
      ],
      { env },
    );
    expect(run.code, run.stderr).toBe(0);
    expect(requests).toHaveLength(2);
    expect(sent(requests)).not.toContain(CANARY);
    expect(sent(requests)).toContain(MARKER);
    expect(filesUnder(transcripts)).not.toContain(CANARY);
  });

  it("the App (issue jobs and red-build repairs): the environment's canary, the webhook secret and the model key are removed", async () => {
    const webhookSecret = "webhook-secret-5e8d1c";
    const dbPath = join(mkdtempSync(join(tmpdir(), "autogen-doors-app-")), "autogen.db");
    const env: NodeJS.ProcessEnv = {
      APP_ID: "42",
      PRIVATE_KEY: testPrivateKey(),
      WEBHOOK_SECRET: webhookSecret,
      LOG_LEVEL: "fatal",
      AUTOGEN_DB_PATH: dbPath,
      AUTOGEN_LLM_BASE_URL: LLM_BASE,
      OPENAI_API_KEY: "sk-app-model-key-0123",
      DEPLOY_TOKEN: CANARY,
    };
    const handle = await appFromConfig(loadServerConfig(env), env);
    try {
      const job = { id: 7 } as Job;
      const llm = handle.llmFor?.(repoConfigSchema.parse({}), job, new AbortController().signal);
      const text = await callWithCanary(llm, `${CANARY} ${webhookSecret} sk-app-model-key-0123`);
      expect(text).not.toContain(CANARY);
      expect(text).not.toContain(webhookSecret);
      expect(text).not.toContain("sk-app-model-key-0123");
      expect(text).toContain(MARKER);
      const recorded = readFileSync(join(dbPath, "..", "transcripts", "job-7.jsonl"), "utf8");
      expect(recorded).toContain(MARKER);
      expect(recorded).not.toContain(CANARY);
    } finally {
      await handle.store.close();
    }
  });

  it("the Action: a secret of the runner's environment, dropped at start, is still removed; AUTOGEN_PRICES counts", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-doors-action-"));
    const env: NodeJS.ProcessEnv = {
      "INPUT_GITHUB-TOKEN": "ghs_workflowtoken1234567890",
      "INPUT_LLM-BASE-URL": LLM_BASE,
      "INPUT_LLM-API-KEY": "sk-action-model-key-0123",
      INPUT_MODEL: "priced-model",
      INPUT_STRATEGY: "lpw",
      INPUT_LABEL: "autogen",
      ACTIONS_RUNTIME_TOKEN: CANARY,
      AUTOGEN_PRICES: JSON.stringify({ "priced-model": { input: 10_000, cachedInput: 0, output: 0 } }),
    };
    // What runAction does first: read the inputs, then drop every secret from its environment.
    const inputs = readActionInputs(env);
    dropSecretsFromEnvironment(env);
    expect(env.ACTIONS_RUNTIME_TOKEN).toBeUndefined();
    await mkdir(join(dir, "data"));
    const llmFor = actionLlmFor(env, inputs, actionScrubber(env, inputs), join(dir, "data"));
    const llm = llmFor?.(
      repoConfigSchema.parse({ budgets: { dollars: 100 } }),
      { id: 3 } as Job,
      new AbortController().signal,
    );
    const text = await callWithCanary(llm, `${CANARY} ghs_workflowtoken1234567890`);
    expect(text).not.toContain(CANARY);
    expect(text).not.toContain("ghs_workflowtoken1234567890");
    expect(text).toContain(MARKER);
    // The scripted answer reports 100 prompt tokens: at $10,000 a million under AUTOGEN_PRICES, $1 (an unpriced model costs 0).
    expect(llm?.budget.state.dollars).toBe(1);
    expect(filesUnder(join(dir, "data", "transcripts"))).not.toContain(CANARY);
  });

  it("the Action: an invalid AUTOGEN_PRICES is named, not a stack trace", () => {
    const env: NodeJS.ProcessEnv = {
      "INPUT_GITHUB-TOKEN": "ghs_workflowtoken1234567890",
      "INPUT_LLM-BASE-URL": LLM_BASE,
      INPUT_STRATEGY: "lpw",
      AUTOGEN_PRICES: "{not json",
    };
    const inputs = readActionInputs(env);
    expect(() => actionLlmFor(env, inputs, actionScrubber(env, inputs), DATA)).toThrow(/AUTOGEN_PRICES is not JSON/);
  });
});
