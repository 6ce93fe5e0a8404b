// What the plan, verify and implement prompts show about failing JavaScript tests, read from
// real tape, mocha and node --test runs: each test's call found from its title (tape and
// mocha name a test, not a file and line) and shown whole with its describe lines by their
// true line numbers, and how it fails with the expected and actual values (tape's YAML
// diagnostics, node:assert's `+ actual - expected` diff line by line).
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { failingTestsBlock } from "../../../src/engine/lpw/failing-tests-block.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import { failingTests, type TestReport } from "../../../src/verify/test-report.ts";
import { npmFixture } from "../../support/npm-fixture.ts";

const run = (dir: string, command: string): Promise<TestReport> =>
  localVerifier(detectRunner(dir, command), { timeoutMs: 120_000 }).run(dir, { kind: "all" });

// minimist's and qs's reproduction tests as the model wrote them in the live run of 2026-12-05.
const TAPE = `'use strict';

var parse = require('../');
var test = require('tape');

test('long option takes a single dash as its value', function (t) {
\tt.deepEqual(parse(['--long', '-']), { long: '-', _: [] });
\tt.end();
});

test('parse(): parameterLimit: Infinity with throwOnLimitExceeded', function (t) {
    t.test('parses every parameter and does not throw with throwOnLimitExceeded: true', function (st) {
        st.deepEqual(parse(['a=1&b=2&c=3']), { a: '1', b: '2', c: '3' });
        st.end();
    });
    t.end();
});
`;

// js-yaml's: a mocha suite under a parent describe, two tests of one title in different describes.
const MOCHA = `'use strict';

var assert = require('assert');
var load = require('../../');

describe('Anchor on an empty node', function () {
  it('should resolve an alias to an anchored empty mapping value', function () {
    assert.deepStrictEqual(load('a: &a\\nb: *a\\n'), { a: null, b: null });
  });
});

describe('Anchor on a scalar', function () {
  it('should resolve an alias to an anchored empty mapping value', function () {
    assert.ok(true);
  });
});
`;

describe("failing JavaScript tests as the model sees them, from real runs", () => {
  it("tape: a title-only test (and a t.test subtest) shown by line number, deepEqual's expected and actual kept", async () => {
    const dir = npmFixture(
      { tape: "^5" },
      {
        "index.js":
          "module.exports = function (argv) { return argv[0] === '--long' ? { _: ['-'], long: true } : {}; };\n",
        "test/long.js": TAPE,
      },
    );
    if (!dir) return void console.warn("tape is not in the npm cache: skipped");
    const report = await run(dir, "npx tape test/*.js");
    const block = await failingTestsBlock(dir, failingTests(report));
    expect(block).not.toContain("could not be read");
    expect(block).toContain(
      [
        "# test/long.js",
        "6|test('long option takes a single dash as its value', function (t) {",
        "7|\tt.deepEqual(parse(['--long', '-']), { long: '-', _: [] });",
        "8|\tt.end();",
        "9|});",
        "# long option takes a single dash as its value",
        "# fails now with: should be deeply equivalent (deepEqual)",
        "#   expected: { long: '-', _: [] }",
        "#   actual: { _: [ '-' ], long: true }",
      ].join("\n"),
    );
    // The subtest under its parent test's opening line, the lines between marked as left out.
    expect(block).toContain(
      [
        "11|test('parse(): parameterLimit: Infinity with throwOnLimitExceeded', function (t) {",
        "12|    t.test('parses every parameter and does not throw with throwOnLimitExceeded: true', function (st) {",
        "13|        st.deepEqual(parse(['a=1&b=2&c=3']), { a: '1', b: '2', c: '3' });",
      ].join("\n"),
    );
    expect(block).toContain("#   expected: { a: '1', b: '2', c: '3' }\n#   actual: {}");
  }, 300_000);

  it("mocha: the test of that title in the describe the id names, node:assert's diff line by line", async () => {
    const dir = npmFixture(
      { mocha: "^11" },
      {
        "index.js": "module.exports = function () { return { a: null, b: [] }; };\n",
        "test/issues.js": "describe('Issues', function () {\n  require('./issues/anchor-empty-node.js');\n});\n",
        "test/issues/anchor-empty-node.js": MOCHA,
      },
    );
    if (!dir) return void console.warn("mocha is not in the npm cache: skipped");
    const report = await run(dir, "mocha test/issues.js");
    const failing = failingTests(report);
    expect(failing.map((t) => t.id)).toEqual([
      expect.stringContaining(
        "Issues Anchor on an empty node > should resolve an alias to an anchored empty mapping value",
      ),
    ]);
    const block = await failingTestsBlock(dir, failing);
    expect(block).toContain(
      [
        "# test/issues/anchor-empty-node.js",
        "6|describe('Anchor on an empty node', function () {",
        "7|  it('should resolve an alias to an anchored empty mapping value', function () {",
        "8|    assert.deepStrictEqual(load('a: &a\\nb: *a\\n'), { a: null, b: null });",
        "9|  });",
      ].join("\n"),
    );
    expect(block).toMatch(
      /# fails now with: Expected values to be strictly deep-equal:\n# {3}\+ actual - expected\n(#.*\n)*# {3}\+ {3}b: \[\]\n# {3}- {3}b: null\n/,
    );
  }, 300_000);

  it("node --test: a test in a describe, strictEqual's diff of two strings kept", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-js-block-"));
    mkdirSync(join(dir, "test"));
    writeFileSync(join(dir, "package.json"), JSON.stringify({ scripts: { test: "node --test" } }));
    writeFileSync(
      join(dir, "test/dump.test.js"),
      [
        "const { describe, it } = require('node:test');",
        "const assert = require('node:assert');",
        "",
        "describe('dump', () => {",
        "  it('quotes a colon', () => {",
        "    assert.strictEqual('a: b\\n', \"'a: b'\\n\");",
        "  });",
        "});",
        "",
      ].join("\n"),
    );
    const report = await run(dir, "npm test");
    const block = await failingTestsBlock(dir, failingTests(report));
    expect(block).toContain(
      [
        "# test/dump.test.js",
        "4|describe('dump', () => {",
        "5|  it('quotes a colon', () => {",
        "6|    assert.strictEqual('a: b\\n', \"'a: b'\\n\");",
        "7|  });",
      ].join("\n"),
    );
    expect(block).toContain(
      "# fails now with: Expected values to be strictly equal:\n#   + actual - expected\n#\n#   + 'a: b\\n'\n#   - \"'a: b'\\n\"",
    );
  }, 120_000);
});
