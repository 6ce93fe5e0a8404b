// The debugging prompts LPW sends when its first implementation of a JavaScript fix still
// fails, read from the HTTP requests to a scripted model over real node --test runs: the
// instrument, analyze-error and refine prompts show the failing test's call by its line numbers
// and node:assert's expected and actual values, not only the test's name.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { lpwStrategy } from "../../../src/engine/lpw/lpw-strategy.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import type { TestSelection } from "../../../src/verify/runners/test-runner.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";

useHttpMock();

const TEST = [
  "const { describe, it } = require('node:test');",
  "const assert = require('node:assert');",
  "const { quote } = require('../lib/dump.js');",
  "",
  "describe('dump', () => {",
  "  it('quotes a colon', () => {",
  "    assert.strictEqual(quote('a: b'), \"'a: b'\");",
  "  });",
  "});",
  "",
].join("\n");

const replace = (search: string, by: string) => ({
  edits: [{ kind: "replace", path: "lib/dump.js", search, replace: by }],
});

const VERIFIED = {
  stage: "verify-plan",
  content: {
    tests: [
      {
        test: "quotes a colon",
        steps: [{ step: 1, value: "'a: b'" }],
        derived: "'a: b'",
        expected: "'a: b'",
        matches: true,
      },
    ],
  },
};

/** LPW on a node --test project whose quote() returns its input, with `tests` as its test file. */
async function runLpw(tests: string, regression?: TestSelection) {
  const dir = mkdtempSync(join(tmpdir(), "autogen-js-debug-"));
  mkdirSync(join(dir, "lib"));
  mkdirSync(join(dir, "test"));
  writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
  writeFileSync(join(dir, "lib/dump.js"), "exports.quote = function (s) {\n  return s;\n};\n");
  writeFileSync(join(dir, "test/dump.test.js"), tests);
  const sandbox = { timeoutMs: 60_000 };
  const runner = detectRunner(dir, "npm test");
  return lpwStrategy({ llm: testLlm(), codeExplanation: false }).run({
    workspace: dir,
    visible: { kind: "tests", ids: ["test/dump.test.js > dump > quotes a colon"] },
    ...(regression ? { regression } : {}),
    verifier: localVerifier(runner, sandbox),
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 10, minutes: 5 },
    description: "quote() does not quote a string with a colon",
  });
}

describe("LPW's debugging prompts for a failing JavaScript test", () => {
  it("show the test's call with its line numbers and the actual and expected values", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["Wrap a string holding ': ' in single quotes"] } },
      VERIFIED,
      { stage: "implement", content: replace("return s;", 'return "\'" + s;') },
      {
        stage: "instrument",
        content: replace('return "\'" + s;', "console.error('AUTOGEN-TRACE', s);\n  return \"'\" + s;"),
      },
      { stage: "analyze-error", content: { divergence: "the closing quote is missing", fix: "add it" } },
      { stage: "refine", content: replace('return "\'" + s;', 'return "\'" + s + "\'";') },
    ]);
    const outcome = await runLpw(TEST);
    expect([outcome.stopReason, outcome.message]).toEqual(["solved", expect.anything()]);
    const user = (stage: string) =>
      requests.find((r) => r.response_format.json_schema.name === stage)?.messages.at(-1)?.content ?? "";
    const shown = [
      "5|describe('dump', () => {",
      "6|  it('quotes a colon', () => {",
      "7|    assert.strictEqual(quote('a: b'), \"'a: b'\");",
    ].join("\n");
    // After the first implementation the value is `'a: b` where `'a: b'` was expected.
    const values = '# fails now with: Expected values to be strictly equal:\n#\n#   "\'a: b" !== "\'a: b\'"';
    for (const stage of ["instrument", "analyze_error", "refine"]) {
      expect(user(stage)).toContain(shown);
      expect(user(stage)).toContain(values);
    }
    // The plan prompt shows the same test before any change, with the values of the unchanged code.
    expect(user("plan")).toContain(shown);
    expect(user("plan")).toContain("#   'a: b' !== \"'a: b'\"");
  }, 120_000);

  it("give a regression test the plan was never checked on the plan's steps, not another test's verified values", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["Wrap the string in single quotes"] } },
      VERIFIED,
      { stage: "implement", content: replace("return s;", 'return "\'" + s + "\'";') },
      { stage: "instrument", content: replace("exports.quote", "console.error('AUTOGEN-TRACE');\nexports.quote") },
      { stage: "analyze-error", content: { divergence: "a plain word is quoted too", fix: "quote only with ': '" } },
      {
        stage: "refine",
        content: replace('return "\'" + s + "\'";', "return s.includes(': ') ? \"'\" + s + \"'\" : s;"),
      },
    ]);
    const outcome = await runLpw(
      TEST.concat("it('keeps a plain word', () => {\n  assert.strictEqual(quote('ab'), 'ab');\n});\n"),
      { kind: "all" },
    );
    expect([outcome.stopReason, outcome.message]).toEqual(["solved", expect.anything()]);
    const analysis = requests
      .find((r) => r.response_format.json_schema.name === "analyze_error")
      ?.messages.at(-1)?.content;
    expect(analysis).toContain(
      "(the plan was not verified on this test; its steps:)\n1. Wrap the string in single quotes",
    );
    expect(analysis).not.toContain('"test": "quotes a colon"');
    expect(analysis).toContain("10|it('keeps a plain word', () => {\n11|  assert.strictEqual(quote('ab'), 'ab');");
  }, 120_000);
});
