// JavaScript localisation at a small multiple of the suite: a node --test repository of 41
// tests, one failing. The strategy's coverage runs are three whatever the suite's size (the
// test files loading alone, the suite once, the failing test alone), not one per
// test, and the bug's line ranks first with the passing tests' counts that run gave (real
// node --test, real sandbox).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { ochiai } from "../../../src/engine/template/ochiai.ts";
import { templateStrategy } from "../../../src/engine/template/template-strategy.ts";
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
  "function pad(text, width) {", // 10
  "  let out = String(text);", // 11
  "  while (out.length < width) {", // 12
  '    out = " " + out;', // 13
  "  }", // 14
  "  return out;", // 15
  "}", // 16
  "module.exports = { clamp, pad };", // 17
  "",
].join("\n");

// 40 passing tests: clamp below, inside, and once above a range of one value (where lo is hi); pad.
const passing: Array<[string, string]> = [
  ...Array.from({ length: 15 }, (_, i): [string, string] => [`clamp ${i} inside`, `clamp(${i}, 0, 20), ${i}`]),
  ...Array.from({ length: 14 }, (_, i): [string, string] => [`clamp -${i + 1} below`, `clamp(-${i + 1}, 0, 9), 0`]),
  ["clamp above a point range", "clamp(5, 3, 3), 3"],
  ...Array.from({ length: 10 }, (_, i): [string, string] => [`pad ${i}`, `pad("x", ${i + 2}).length, ${i + 2}`]),
];
const PASSING = passing.map(([name]) => `test/clamp.test.js > test > ${name}`);
const TESTS = [
  'const test = require("node:test");',
  'const assert = require("node:assert");',
  'const { clamp, pad } = require("../lib/clamp.js");',
  ...passing.map(([name, args]) => `test(${JSON.stringify(name)}, () => assert.equal(${args}));`),
  'test("clamp above", () => assert.equal(clamp(30, 0, 9), 9));',
  "",
].join("\n");
const FAILING = "test/clamp.test.js > test > clamp above";

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-spectra-suite-"));
  await mkdir(join(dir, "lib"));
  await mkdir(join(dir, "test"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "clamp", scripts: { test: "node --test" } }));
  await writeFile(join(dir, "lib", "clamp.js"), SOURCE);
  await writeFile(join(dir, "test", "clamp.test.js"), TESTS);
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

/** The real verifier, keeping each coverage run's selection. */
function counting(covered: TestSelection[]): Verifier {
  const real = localVerifier(detectRunner(dir), { timeoutMs: 120_000 });
  return {
    run(workspace, selection, extraEnv, limit) {
      if (extraEnv?.NODE_V8_COVERAGE) covered.push(selection);
      return real.run(workspace, selection, extraEnv, limit);
    },
  };
}

describe("JavaScript localisation from one run of the passing tests", () => {
  it("gives each line the passing tests that ran it, from their run's counts, the loads' lines every passing test", async () => {
    const covered: TestSelection[] = [];
    const js = await jsSpectra(dir, counting(covered), [FAILING], PASSING);
    expect(covered).toHaveLength(3);
    expect(js.runs).toBe(3);
    expect(js.passing).toBe(40);
    expect(js.spectra.map((s) => [s.id, s.failed])).toEqual([[FAILING, true]]);
    const f = "lib/clamp.js";
    // Run while the file loads (the export): in every passing test's process.
    expect(js.passed.covering(f, 17)).toBe(40);
    // clamp (its header line is its function's range): called by 30 passing tests; below the range 14,
    // above it the one with a point range.
    expect([1, 2, 3, 5, 6, 8].map((line) => js.passed.covering(f, line))).toEqual([30, 30, 14, 16, 1, 15]);
    // pad ran in 10 passing tests; its loop's body more often than that (an estimate from counts, at least 10).
    expect([10, 11].map((line) => js.passed.covering(f, line))).toEqual([10, 10]);
    expect(js.passed.covering(f, 13)).toBeGreaterThanOrEqual(10);
    const top = ochiai(js.spectra, (file) => !isTestFile(file), js.passed)[0];
    expect(top).toMatchObject({ file: f, line: 6, failedCovering: 1, passedCovering: 1 });
  }, 150_000);

  it("starts three coverage runs in the template strategy, not one per test, and ranks the bug's line first", async () => {
    const covered: TestSelection[] = [];
    const verifier = counting(covered);
    const stop = new AbortController();
    const stages: string[] = [];
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "tests", ids: [FAILING] },
      regression: { kind: "all" },
      verifier,
      sandbox: { timeoutMs: 120_000 },
      runnerName: "node-test",
      isTestFile,
      budget: { candidates: 200, minutes: 10 },
      signal: stop.signal,
      onProgress: (event) => {
        if (event.kind !== "stage") return;
        stages.push(`${event.stage}: ${event.detail ?? ""}`);
        // Localisation is done: no candidate is tried.
        if (event.stage === "repair") stop.abort();
      },
    });
    expect(covered.map((s) => (s.kind === "all" ? "all" : s.ids.join(",")))).toEqual([
      "autogen no test matches this title 5f0c2e",
      "all",
      FAILING,
    ]);
    // Each run's seconds follow (not asserted: timing).
    expect(stages.map((s) => s.split("; loads ")[0])).toContain(
      "localise: JavaScript coverage: 3 runs (1 failing test(s) alone, 40 passing from one run",
    );
    expect(outcome.plan.localisation[0]).toMatchObject({ file: "lib/clamp.js", line: 6 });
  }, 300_000);
});
