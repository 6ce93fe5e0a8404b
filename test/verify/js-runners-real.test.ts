// Each JavaScript runner, at the versions real projects pin, run for real in the sandbox
// through the project's own test command: per-test counts as the runner reports them,
// and one failing test selected alone.
import { mkdtempSync, mkdirSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { grantDirectory } from "../../src/verify/sandbox/workspace-grants.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { countByStatus, type TestReport } from "../../src/verify/test-report.ts";
import { npmFixture } from "../support/npm-fixture.ts";

const run = (dir: string, command: string, ids?: string[]): Promise<TestReport> =>
  localVerifier(detectRunner(dir, command), { timeoutMs: 120_000 }).run(
    dir,
    ids ? { kind: "tests", ids } : { kind: "all" },
  );

const TAPE = `var test = require('tape');
test('adds numbers', function (t) { t.equal(1 + 1, 2); t.equal(2 + 2, 4); t.end(); });
test('subtracts wrongly', function (t) { t.equal(2 - 1, 2, 'two minus one'); t.end(); });
`;
const TAPE_MORE = `var test = require('tape');
${Array.from({ length: 4 }, (_, i) => `test('more ${String(i)}', function (t) { t.ok(true); t.end(); });`).join("\n")}
`;

describe.concurrent("real JavaScript runners", () => {
  it("tape through `npx tape test/*.js`: every test from its TAP, a failing one selected alone", async () => {
    const dir = npmFixture({ tape: "^5" }, { "test/a.js": TAPE, "test/b.js": TAPE_MORE });
    if (!dir) return void console.warn("tape is not in the npm cache: skipped");
    const all = await run(dir, "npx tape test/*.js");
    expect(all.run.exitCode).toBe(1);
    expect(countByStatus(all.tests)).toEqual({ pass: 5, fail: 1, error: 0, skip: 0 });
    const one = await run(dir, "npx tape test/*.js", ["subtracts wrongly"]);
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["subtracts wrongly:fail"]);
    expect(one.tests[0]?.message).toContain("two minus one");
    const passing = await run(dir, "npx tape test/*.js", ["more 2"]);
    expect(passing.tests.map((t) => `${t.id}:${t.status}`)).toEqual(["more 2:pass"]);
    expect(passing.run.exitCode).toBe(0);
  }, 300_000);

  const MOCHA = `var assert = require('assert');
describe('ms', function () {
  describe('parse', function () {
    it('reads 1s', function () { assert.equal(1000, 1000); });
    it('reads 1m wrongly', function () { assert.equal(60, 60000); });
  });
  it('formats (1+1)', function () { assert.ok(true); });
});
`;
  for (const version of ["4.0.1", "5.2.0", "^11"]) {
    it(`mocha ${version} through \`mocha tests.js\`: the file argument kept, the report option its version takes`, async () => {
      const dir = npmFixture({ mocha: version }, { "tests.js": MOCHA });
      if (!dir) return void console.warn(`mocha ${version} is not in the npm cache: skipped`);
      const all = await run(dir, "mocha tests.js");
      expect(all.source).toBe("junit");
      expect(countByStatus(all.tests)).toEqual({ pass: 2, fail: 1, error: 0, skip: 0 });
      const failing = all.tests.find((t) => t.status === "fail");
      expect(failing?.name).toBe("reads 1m wrongly");
      const one = await run(dir, "mocha tests.js", [failing?.id ?? ""]);
      expect(one.tests.map((t) => `${t.name}:${t.status}`)).toEqual(["reads 1m wrongly:fail"]);
      const nested = await run(dir, "mocha tests.js", [all.tests.find((t) => t.name === "formats (1+1)")?.id ?? ""]);
      expect(nested.tests.map((t) => `${t.name}:${t.status}`)).toEqual(["formats (1+1):pass"]);
      expect(nested.run.exitCode).toBe(0);
    }, 300_000);
  }

  const AVA = `const test = require('ava');
test('adds numbers', t => { t.is(1 + 1, 2); });
test('subtracts wrongly', t => { t.is(2 - 1, 2); });
${Array.from({ length: 5 }, (_, i) => `test('more ${String(i)}', t => { t.pass(); });`).join("\n")}
`;
  for (const version of ["^4", "^6"]) {
    it(`ava ${version} through \`npm test\`: "N tests passed" read per test, one selected with --match`, async () => {
      const dir = npmFixture({ ava: version }, { "test/calc.js": AVA }, { scripts: { test: "ava" } });
      if (!dir) return void console.warn(`ava ${version} is not in the npm cache: skipped`);
      const all = await run(dir, "npm test");
      expect(all.run.argv).toContain("--tap");
      expect(countByStatus(all.tests)).toEqual({ pass: 6, fail: 1, error: 0, skip: 0 });
      const failing = all.tests.find((t) => t.status === "fail");
      const one = await run(dir, "npm test", [failing?.id ?? ""]);
      expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual([`${failing?.id ?? ""}:fail`]);
    }, 300_000);
  }

  const NESTED = (api: string) => `${api}
describe("calc", () => {
  describe("divide", () => {
    it("divides", () => { expect(6 / 3).toBe(2); });
    it("throws on zero", () => { expect(() => 1 / 0).toThrow(); });
  });
});
it("throws on zero", () => { expect(1).toBe(1); });
`;

  it("vitest: a failing test inside describe blocks selected alone (its full title), not its top-level namesake", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-vitest-"));
    mkdirSync(join(dir, "test"));
    writeFileSync(
      join(dir, "package.json"),
      JSON.stringify({ name: "v", private: true, type: "module", scripts: { test: "vitest run test" } }),
    );
    writeFileSync(join(dir, "test/calc.test.js"), NESTED('import { describe, expect, it } from "vitest";'));
    // This project's own vitest, the version it tests itself with.
    symlinkSync(join(import.meta.dirname, "../../node_modules"), join(dir, "node_modules"));
    // As the CLI does for a checkout's node_modules it links in: shown to the sandbox read-only.
    grantDirectory(dir, join(import.meta.dirname, "../../node_modules"));
    const all = await run(dir, "npm test");
    expect(countByStatus(all.tests)).toEqual({ pass: 2, fail: 1, error: 0, skip: 0 });
    const failing = all.tests.find((t) => t.status === "fail");
    expect(failing?.id).toBe("test/calc.test.js > calc > divide > throws on zero");
    const one = await run(dir, "npm test", [failing?.id ?? ""]);
    expect(one.tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "test/calc.test.js > calc > divide > throws on zero:fail",
    ]);
  }, 300_000);

  it("jest 29: the same selection by full title", async () => {
    const dir = npmFixture({ jest: "^29" }, { "test/calc.test.js": NESTED("") });
    if (!dir) return void console.warn("jest 29 is not in the npm cache: skipped");
    const all = await run(dir, "jest");
    expect(countByStatus(all.tests)).toEqual({ pass: 2, fail: 1, error: 0, skip: 0 });
    const failing = all.tests.find((t) => t.status === "fail");
    const one = await run(dir, "jest", [failing?.id ?? ""]);
    expect(one.tests.map((t) => `${t.name}:${t.status}`)).toEqual(["throws on zero:fail"]);
    expect(one.tests[0]?.id).toBe(failing?.id);
  }, 300_000);
});
