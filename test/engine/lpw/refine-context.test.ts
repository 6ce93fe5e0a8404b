// The refine prompt shows the code the error analysis's fix names, not only the code the plan
// named: in a live run on js-yaml the analysis put the fix in writeScalar (compat-mode quoting),
// the refine prompt showed the plan's functions alone and said only the lines shown can be
// edited. Read from the HTTP requests to a scripted model over real node --test runs.
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { lpwStrategy } from "../../../src/engine/lpw/lpw-strategy.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";

useHttpMock();

/** Unrelated helpers, so that the module is longer than a file shown whole. */
const FILLERS = ["padLeft", "padRight", "repeatText", "countLines", "trimEnd", "firstWord", "lastWord", "joinAll"].map(
  (name) =>
    [
      `function ${name}(text, n) {`,
      "  var out = '';",
      "  for (var i = 0; i < n; i++) {",
      "    out += text.charAt(i % text.length);",
      "  }",
      "  if (out.length > 100) {",
      "    out = out.slice(0, 100);",
      "  }",
      "  return out;",
      "}",
      "",
    ].join("\n"),
);

const HELPER_BODY = "return s.indexOf(': ') !== -1;";

const MODULE = [
  "'use strict';",
  "",
  ...FILLERS.slice(0, 4),
  "function hasSeparator(s) {",
  `  ${HELPER_BODY}`,
  "}",
  "",
  ...FILLERS.slice(4),
  "function quote(s) {",
  "  return s;",
  "}",
  "",
  "exports.quote = quote;",
  "exports.hasSeparator = hasSeparator;",
  "",
].join("\n");

const TESTS = [
  "const { it } = require('node:test');",
  "const assert = require('node:assert');",
  "const { quote } = require('../lib/dump.js');",
  "",
  "it('quotes a colon', () => {",
  "  assert.strictEqual(quote('a: b'), \"'a: b'\");",
  "});",
  "",
  "it('keeps a URL plain', () => {",
  "  assert.strictEqual(quote('http://x'), 'http://x');",
  "});",
  "",
].join("\n");

const COLON = "return s.indexOf(':') !== -1 ? \"'\" + s + \"'\" : s;";
const replace = (search: string, by: string) => ({
  edits: [{ kind: "replace", path: "lib/dump.js", search, replace: by }],
});

describe("LPW's refine prompt", () => {
  it("shows the function the error analysis's fix names, which the plan's code left out", async () => {
    const { requests } = scriptAnswers([
      { stage: "plan", content: { steps: ["In quote, wrap a string holding ': ' in single quotes"] } },
      {
        stage: "verify-plan",
        content: {
          tests: [
            { test: "quotes a colon", steps: [{ step: 1, value: "'a: b'" }], derived: "'a: b'", expected: "'a: b'" },
          ].map((t) => ({ ...t, matches: true })),
        },
      },
      { stage: "implement", content: replace("return s;", COLON) },
      {
        stage: "instrument",
        content: replace("function quote(s) {", "function quote(s) {\n  console.error('AUTOGEN-TRACE', s);"),
      },
      {
        stage: "analyze-error",
        content: { divergence: "'http://x' is quoted", fix: "in quote, decide with hasSeparator(s), not indexOf(':')" },
      },
      { stage: "refine", content: replace(COLON, COLON.replace("s.indexOf(':') !== -1", "hasSeparator(s)")) },
    ]);
    const dir = mkdtempSync(join(tmpdir(), "autogen-refine-context-"));
    mkdirSync(join(dir, "lib"));
    mkdirSync(join(dir, "test"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    writeFileSync(join(dir, "lib/dump.js"), MODULE);
    writeFileSync(join(dir, "test/dump.test.js"), TESTS);
    const sandbox = { timeoutMs: 60_000 };
    const runner = detectRunner(dir, "npm test");
    const outcome = await lpwStrategy({ llm: testLlm(), codeExplanation: false }).run({
      workspace: dir,
      visible: { kind: "tests", ids: ["test/dump.test.js > quotes a colon"] },
      regression: { kind: "all" },
      verifier: localVerifier(runner, sandbox),
      sandbox,
      runnerName: runner.name,
      isTestFile,
      budget: { candidates: 10, minutes: 5 },
      description: "quote() does not quote a string with a colon",
    });
    expect([outcome.stopReason, outcome.message]).toEqual(["solved", expect.anything()]);
    const user = (stage: string) =>
      requests.find((r) => r.response_format.json_schema.name === stage)?.messages.at(-1)?.content ?? "";
    // The code built from the plan (the instrument prompt's) shows hasSeparator by its signature at most.
    expect(user("instrument")).toContain("function quote(s) {");
    expect(user("instrument")).not.toContain(HELPER_BODY);
    // The refine prompt, built again with the fix in view, shows it whole beside quote.
    expect(user("refine")).toContain("function quote(s) {");
    expect(user("refine")).toContain(HELPER_BODY);
  }, 120_000);
});
