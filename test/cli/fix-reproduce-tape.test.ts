// `autogen fix --issue` on a tape project (tape from the npm cache, the real runner): tape's
// TAP names no file, so the reproduction test's results are told from the suite's by what is
// new against the suite's run before it (the pipeline's baseline). A test named like an
// existing one cannot be told apart (tape numbers repeated names in run order, so the new
// one would take an existing test's id): it is refused with a message saying what to do,
// and the model's next test, named apart, is accepted and the bug fixed.
import { mkdtempSync } from "node:fs";
import { readFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { Outcome } from "../../src/engine/task.ts";
import { git } from "../support/git-client.ts";
import { useHttpMock } from "../support/http-mock.ts";
import { LLM_BASE, scriptAnswers } from "../support/llm-mock.ts";
import { npmFixture } from "../support/npm-fixture.ts";
import { runCli } from "../support/run-cli.ts";

useHttpMock();

const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
  AUTOGEN_LLM_BASE_URL: LLM_BASE,
  OPENAI_API_KEY: "sk-test-key",
};

const WORDS = `'use strict';

exports.capitalize = function (word) {
  return word.charAt(0).toUpperCase() + word.slice(0).toLowerCase();
};

exports.shout = function (word) {
  return word.toUpperCase() + '!';
};
`;
// Two files with a test of the same name: tape reports them as "empty input" and "empty input (2)".
const TEST_A = `var test = require('tape');
var words = require('../lib/words');

test('empty input', function (t) {
  t.equal(words.capitalize(''), '');
  t.end();
});

test('shout', function (t) {
  t.equal(words.shout('hey'), 'HEY!');
  t.end();
});
`;
const TEST_C = `var test = require('tape');
var words = require('../lib/words');

test('empty input', function (t) {
  t.equal(words.shout(''), '!');
  t.end();
});
`;
const ISSUE = "capitalize repeats the first letter\n\n`capitalize('tea')` returns `Ttea`; it should return `Tea`.";

const repro = (name: string) => ({
  stage: "reproduce",
  content: {
    // Sorted between test/a.js and test/c.js: its tests run between theirs.
    path: "test/b-capitalize.js",
    content: `var test = require('tape');\nvar words = require('../lib/words');\n\ntest('${name}', function (t) {\n  t.equal(words.capitalize('tea'), 'Tea', 'capitalize(tea)');\n  t.end();\n});\n`,
    expectedFailure: "should be strictly equal",
    // With each test, the calls the behaviour table runs once a fix passes (those of the accepted answer).
    behaviour: {
      module: "lib/words.js",
      calls: [{ call: 'capitalize("tea")', expected: "'Tea'", why: "the issue's case" }],
    },
  },
});

const FIX = [
  { stage: "plan", content: { steps: ["Keep the first letter upper-cased", "Append the rest from index 1"] } },
  {
    stage: "verify-plan",
    content: {
      tests: [
        {
          test: "capitalize keeps one first letter",
          steps: [
            { step: 1, value: "T" },
            { step: 2, value: "Tea" },
          ],
          derived: "Tea",
          expected: "Tea",
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
          path: "lib/words.js",
          search: "word.slice(0).toLowerCase()",
          replace: "word.slice(1).toLowerCase()",
        },
      ],
    },
  },
];

describe("autogen fix --issue on a tape project (TAP names no file)", { timeout: 600_000 }, () => {
  it("counts the tests new against the baseline as the reproduction file's; a name clash is refused with what to do", async () => {
    const dir = npmFixture(
      { tape: "^5" },
      { ".gitignore": "node_modules/\n", "lib/words.js": WORDS, "test/a.js": TEST_A, "test/c.js": TEST_C },
      { scripts: { test: "tape test/*.js" } },
    );
    if (!dir) return void console.warn("tape is not in the npm cache: skipped");
    const g = git(dir);
    await g.raw(["init", "--quiet", "--initial-branch=main"]);
    await g.raw(["add", "--all"]);
    await g.raw(["-c", "user.name=T", "-c", "user.email=t@example.invalid", "commit", "--quiet", "-m", "initial"]);

    const { requests } = scriptAnswers([repro("empty input"), repro("capitalize keeps one first letter"), ...FIX]);
    const { code, stdout, stderr } = await runCli(["fix", dir, "--issue", ISSUE, "--json"], { env: ENV });
    expect(stderr).toBe("");
    const outcome = JSON.parse(stdout) as Outcome & { branch?: string; report: string };
    expect(outcome.evidence.reproduction).toMatchObject({
      path: "test/b-capitalize.js",
      testIds: ["capitalize keeps one first letter"],
      attempts: 2,
    });
    expect(outcome.evidence.reproduction?.failure).toContain("capitalize(tea)");
    // The first test took the name of two existing tests: the model is told why and what to do.
    const second = requests[1]?.messages[1]?.content ?? "";
    expect(second).toContain(
      "Attempt 1 was rejected: the runner's output (TAP) names no file, so the new file's tests are told from the others by name, and its test(s) 'empty input' take the name of existing tests; give each test in the new file a name no existing test has",
    );
    expect(code).toBe(0);
    expect(outcome).toMatchObject({ status: "fixed", cost: { llmCalls: 5 } });
    expect(
      outcome.behaviour?.kind === "table"
        ? outcome.behaviour.rows.map((r) => [r.before, r.after, r.flag])
        : outcome.behaviour,
    ).toEqual([["'Ttea'", "'Tea'", "ok"]]);
    expect(outcome.changedFiles).toEqual(["lib/words.js", "test/b-capitalize.js"]);
    const branch = outcome.branch ?? "";
    expect(await git(dir).show([`${branch}:lib/words.js`])).toContain("word.slice(1)");
    const report = await readFile(outcome.report, "utf8");
    expect(report).toContain(
      "Reproduction test `capitalize keeps one first letter` (**new test file** `test/b-capitalize.js`",
    );
  });
});
