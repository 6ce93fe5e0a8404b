// Each coverage run pays the runner's start (5 to 30 s for jest and vitest): of several failing
// tests, MAX_FAILING_ALONE (2) run alone and the others once together, so four failing tests
// cost five runs (loads, suite, two alone, the rest together), not six, and the bug's line,
// run by every failing test, still ranks first (real node --test, real sandbox).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { jsSpectra, NO_TEST_ID } from "../../../src/engine/template/js-spectra.ts";
import { ochiai } from "../../../src/engine/template/ochiai.ts";
import { localVerifier, type Verifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import type { TestSelection } from "../../../src/verify/runners/test-runner.ts";

const SOURCE = [
  "function clamp(x, lo, hi) {", // 1
  "  if (x < lo) {", // 2
  "    return lo;", // 3
  "  }", // 4
  "  if (x > hi) {", // 5
  "    return lo;", // 6: the bug (hi)
  "  }", // 7
  "  return x;", // 8
  "}", // 9
  "module.exports = { clamp };", // 10
  "",
].join("\n");
const TESTS = [
  'const test = require("node:test");',
  'const assert = require("node:assert");',
  'const { clamp } = require("../lib/clamp.js");',
  ...Array.from({ length: 8 }, (_, i) => `test("inside ${i}", () => assert.equal(clamp(${i}, 0, 9), ${i}));`),
  ...Array.from({ length: 4 }, (_, i) => `test("below ${i}", () => assert.equal(clamp(-${i + 1}, 0, 9), 0));`),
  ...Array.from({ length: 4 }, (_, i) => `test("above ${i}", () => assert.equal(clamp(${i + 20}, 0, 9), 9));`),
  "",
].join("\n");
const id = (name: string) => `test/clamp.test.js > test > ${name}`;
const FAILING = [0, 1, 2, 3].map((i) => id(`above ${i}`));
let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-spectra-alone-"));
  await mkdir(join(dir, "lib"));
  await mkdir(join(dir, "test"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "clamp", scripts: { test: "node --test" } }));
  await writeFile(join(dir, "lib", "clamp.js"), SOURCE);
  await writeFile(join(dir, "test", "clamp.test.js"), TESTS);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("JavaScript localisation with several failing tests", () => {
  it("runs two of four failing tests alone and the rest together: five coverage runs, the bug's line first", async () => {
    const real = localVerifier(detectRunner(dir), { timeoutMs: 120_000 });
    const covered: TestSelection[] = [];
    const verifier: Verifier = {
      run(workspace, selection, extraEnv, limit) {
        if (extraEnv?.NODE_V8_COVERAGE) covered.push(selection);
        return real.run(workspace, selection, extraEnv, limit);
      },
    };
    const js = await jsSpectra(dir, verifier, FAILING, "all");
    expect(covered.map((s) => (s.kind === "all" ? ["all"] : s.ids))).toEqual([
      [NO_TEST_ID],
      ["all"],
      [FAILING[0]],
      [FAILING[1]],
      FAILING,
    ]);
    expect(js.runs).toBe(5);
    expect(js.passing).toBe(12);
    expect(js.spectra.map((s) => s.id)).toEqual(FAILING.slice(0, 2));
    // The failing tests' counts come from their run together: no passing test ran line 6.
    expect(js.passed.covering("lib/clamp.js", 6)).toBe(0);
    const top = ochiai(js.spectra, (file) => !isTestFile(file), js.passed)[0];
    expect(top).toMatchObject({ file: "lib/clamp.js", line: 6, failedCovering: 2, passedCovering: 0 });
  }, 300_000);
});
