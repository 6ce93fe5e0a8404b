// The red-team suite of tampering model answers, each through the real `autogen fix` CLI
// (the direct strategy, the model scripted over HTTP, real git and real pytest / node
// --test in the sandbox): none may be reported fixed, and the report must say why. Honest
// answers on the same repositories are reported fixed, so the refusals are the guard's.
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { gitRepoCopies } from "../support/git-repo.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { runCli } from "../support/run-cli.ts";
import {
  HONEST_ANSWERS,
  JS_REPO,
  PY_REPO,
  TAMPERING_ANSWERS,
  type TamperingAnswer,
} from "./support/tampering-answers.ts";

useHttpMock();

const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
  AUTOGEN_LLM_BASE_URL: LLM_BASE,
  OPENAI_API_KEY: "sk-test-key",
};

// Every answer is tried on a fresh copy of one of two repositories, each committed once.
const FRESH = { python: gitRepoCopies(PY_REPO), js: gitRepoCopies(JS_REPO) };

type Result = { status: string; branch?: string; report: string; message: string };

/** One model answer through `autogen fix --strategy direct --candidates 1`: the outcome and the report it wrote. */
async function fixWith(
  answer: Pick<TamperingAnswer, "repo" | "edits">,
  after: Array<{ stage: string; content: unknown }> = [],
): Promise<Result & { repo: string }> {
  const repo = await FRESH[answer.repo]();
  scriptAnswers([{ stage: "generate", content: { edits: answer.edits } }, ...after]);
  const run = await runCli(["fix", repo, "--strategy", "direct", "--candidates", "1", "--json"], { env: ENV });
  expect(run.stderr).toBe("");
  const outcome = JSON.parse(run.stdout) as { status: string; branch?: string; report: string; message: string };
  return { ...outcome, report: await readFile(outcome.report, "utf8"), repo };
}

const CALLS = [{ call: "add(2, 3)", expected: "5", why: "the failing test's case" }];
const BEHAVIOUR = {
  python: { stage: "behaviour-calls", content: { module: "calc.ops", calls: CALLS } },
  js: { stage: "behaviour-calls", content: { module: "calc.js", calls: CALLS } },
};

describe("tampering model answers through autogen fix", () => {
  it.each(TAMPERING_ANSWERS.map((a) => [a.name, a] as const))("refuses: %s", async (_name, answer) => {
    const result = await fixWith(answer);
    expect(result.status).toBe("not-fixed");
    expect(result.branch).toBeUndefined();
    expect(result.report).toContain("### Diff policy and test-tampering check");
    expect(result.report).toContain(answer.reason);
    // The attempts table says the refusal once: "tampering: 1 test …", not "tampering: tampering: 1 test …".
    expect(result.report).not.toContain("tampering: tampering");
    expect(await git(result.repo).branch(["--list", "autogen/*"])).toMatchObject({ all: [] });
  });

  it.each(HONEST_ANSWERS.map((a) => [a.name, a] as const))(
    "still reports an honest answer fixed: %s",
    async (_name, answer) => {
      // A fix that passes is then checked on inputs the model writes (the behaviour table).
      const result = await fixWith(answer, [BEHAVIOUR[answer.repo]]);
      expect(result).toMatchObject({ status: "fixed", branch: expect.stringMatching(/^autogen\//) });
      expect(result.report).toContain("no test weakened");
      // The commit says what changed (the model's line, not only the file) and which failing tests it makes pass.
      const message = await git(result.repo).raw(["log", "-1", "--format=%B", result.branch ?? "HEAD"]);
      expect(message).toMatch(/:\d+: return a - b;? → return a \+ b;?\n/);
      expect(message).toMatch(/\nMakes pass: (tests\/test_add\.py::test_add|test\/calc\.test\.js > add > adds)\n/);
      expect(result.report).toContain(
        "| ✅ | <code>add(2, 3)</code> | <code>-1</code> | <code>5</code> | <code>5</code> |",
      );
    },
  );
});
