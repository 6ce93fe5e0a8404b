// Transcripts never hold a secret, whichever client writes them: a canary in the prompt and
// in the model's answer (raw and in the forms a model might echo it) is scrubbed before the
// JSON line is written, by the process's own secrets even when the door passed no scrubber.
import { randomBytes } from "node:crypto";
import { mkdtempSync } from "node:fs";
import { readdir, readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { Budget } from "../../src/llm/budget.ts";
import { openAiLlmClient } from "../../src/llm/llm-client.ts";
import { readTranscript, transcript } from "../../src/llm/transcript.ts";
import { secretScrubber } from "../../src/secrets/scrub-secrets.ts";
import { gitRepo } from "../support/git-repo.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const canary = () => `canary${randomBytes(16).toString("hex")}`;
const b64 = (text: string) => Buffer.from(text).toString("base64");
/** The canary and the forms of it a careless scrubber would let through. */
const traces = (secret: string) => [
  secret,
  [...secret].join(" "),
  b64(`x-access-token:${secret}`).slice(4, 40),
  secret.slice(4, 24),
];
const planSchema = z.object({ steps: z.array(z.string()).min(1) });
const ENV_NAME = "AUTOGEN_TRANSCRIPT_CANARY_SECRET";

afterEach(() => {
  delete process.env[ENV_NAME];
});

describe("transcripts are scrubbed before they are written", () => {
  it("a client built without a scrubber (a door that forgot) still writes no secret of the process", async () => {
    const secret = canary();
    process.env[ENV_NAME] = secret;
    const escaped = [...secret].map((c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, "0")}`).join("");
    scriptAnswers([
      {
        stage: "plan",
        raw: `{"steps":["use ${secret}", "spelled ${[...secret].join(" ")}", "escaped ${escaped}", "header Basic ${b64(`x-access-token:${secret}`)}"]}`,
      },
    ]);
    const path = join(mkdtempSync(join(tmpdir(), "autogen-transcript-")), "t.jsonl");
    const forgetful = openAiLlmClient({
      endpoint: { baseURL: LLM_BASE, apiKey: "k", model: "m" },
      budget: new Budget({ llmCalls: 5, tokens: 1e5, dollars: 5, minutes: 5 }),
      transcript: transcript(path),
      scrub: (text) => text,
      maxRetries: 0,
    });
    const vars = {
      untrusted: {
        problem: `the token ${secret} leaks`,
        tests: "def test_x(): pass",
        failures: "none",
        code: "x = 1",
        findings: "",
      },
      trusted: { memory: "(none)" },
    };
    const { value } = await forgetful.call("plan", vars, planSchema);
    // The run itself got the answer as sent; only what is written is scrubbed.
    expect(value.steps[0]).toBe(`use ${secret}`);
    const written = await readFile(path, "utf8");
    for (const trace of traces(secret)) expect(written).not.toContain(trace);
    const [entry] = readTranscript(path);
    expect(entry?.messages.map((m) => m.content).join("\n")).toContain("the token [secret removed] leaks");
    expect(entry?.answer).toContain("use [secret removed]");
    expect(entry?.answer).toContain("header Basic [secret removed]");
  });

  it("the door's scrubber adds what the process environment does not hold (a token minted for the job)", () => {
    const minted = canary();
    const path = join(mkdtempSync(join(tmpdir(), "autogen-transcript-")), "t.jsonl");
    const sink = transcript(path, secretScrubber([minted]));
    sink.write({
      stage: "plan",
      model: "m",
      attempt: 1,
      messages: [{ role: "user", content: `clone with ${minted}` }],
      answer: `ok ${[...minted].join("-")}`,
      finishReason: "stop",
      refusal: null,
      usage: { promptTokens: 1, completionTokens: 1, cachedTokens: 0 },
      dollars: 0,
      latencyMs: 1,
      error: `failed for ${minted}`,
    });
    return readFile(path, "utf8").then((written) => {
      expect(written).not.toContain(minted);
      expect(written).not.toContain([...minted].join("-"));
      expect(readTranscript(path)[0]).toMatchObject({
        messages: [{ content: "clone with [secret removed]" }],
        answer: "ok [secret removed]",
        error: "failed for [secret removed]",
      });
    });
  });

  it("through `autogen fix`: a canary in the issue and in the model's answers reaches neither the model nor .git/autogen/transcripts", async () => {
    const secret = canary();
    const repo = await gitRepo({
      ".github/autogen.yml":
        'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n',
      "shop/__init__.py": "",
      "shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
      "tests/test_cart.py":
        "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n",
    });
    const { requests } = scriptAnswers([
      {
        stage: "plan",
        content: { steps: [`Sum the prices (key ${secret})`, `Subtract the discount ${[...secret].join(" ")}`] },
      },
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
      {
        // The behaviour check's calls, with the canary in the model's answer: scrubbed too.
        stage: "behaviour-calls",
        content: {
          module: "shop.cart",
          calls: [{ call: "total([10, 20], 5)", expected: "25", why: `the reported case (${secret})` }],
        },
      },
    ]);
    const env = {
      PATH: process.env.PATH,
      HOME: process.env.HOME,
      XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
      AUTOGEN_LLM_BASE_URL: LLM_BASE,
      [ENV_NAME]: secret,
    };
    const run = await runCli(["fix", repo, "--issue", `Discount is added; my key is ${secret}`, "--json"], { env });
    expect(run.stderr).toBe("");
    expect(run.code).toBe(0);
    expect(requests).toHaveLength(4);
    for (const trace of traces(secret)) expect(JSON.stringify(requests)).not.toContain(trace);
    const dir = join(repo, ".git", "autogen", "transcripts");
    const files = await readdir(dir);
    expect(files).toHaveLength(1);
    const written = await readFile(join(dir, files[0] ?? ""), "utf8");
    expect(written.split("\n").filter(Boolean)).toHaveLength(4);
    for (const trace of traces(secret)) expect(written).not.toContain(trace);
    expect(written).toContain("[secret removed]");
  });
});
