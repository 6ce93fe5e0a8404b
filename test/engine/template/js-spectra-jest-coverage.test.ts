// A jest project whose config collects its own coverage (`collectCoverage: true`, as vercel/ms
// does): every run of the localiser then instrumented each file with istanbul and wrote a
// coverage report into the repository, and V8's offsets were those of the instrumented code
// (here the failing test's line 1 ranked first, ran by every passing test). The localiser's
// runs under V8 coverage turn jest's own coverage off, and keep jest's transform cache across
// them (real jest 29 from the npm cache, real sandbox).
import { existsSync, readdirSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { localVerifier, type Verifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import { RUNNER_CACHE_ENV } from "../../../src/verify/runners/test-runner.ts";
import { npmFixture } from "../../support/npm-fixture.ts";

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

const TESTS = [
  'const { clamp, pad } = require("../lib/clamp.js");',
  'describe("clamp", () => {',
  ...Array.from({ length: 6 }, (_, i) => `  test("clamp ${i} inside", () => expect(clamp(${i}, 0, 20)).toBe(${i}));`),
  ...Array.from({ length: 6 }, (_, i) => `  test("pad ${i}", () => expect(pad("x", ${i + 2}).length).toBe(${i + 2}));`),
  '  test("clamp above", () => expect(clamp(30, 0, 9)).toBe(9));',
  "});",
  "",
].join("\n");

describe("JavaScript localisation on a jest project that collects its own coverage", () => {
  it("turns jest's coverage off in its runs: no istanbul pass, no report written, the failing test's lines from V8", async () => {
    const dir = npmFixture(
      { jest: "^29" },
      { "lib/clamp.js": SOURCE, "test/clamp.test.js": TESTS },
      { scripts: { test: "jest" }, jest: { collectCoverage: true, coverageReporters: ["json-summary"] } },
    );
    if (!dir) return void console.warn("jest 29 is not in the npm cache: skipped");
    const real = localVerifier(detectRunner(dir), { timeoutMs: 120_000 });
    let coverageRuns = 0;
    // What each run left in the runner cache the localiser hands its runs (one directory for all).
    const cached: string[][] = [];
    const verifier: Verifier = {
      async run(workspace, selection, extraEnv, limit) {
        if (extraEnv?.NODE_V8_COVERAGE) coverageRuns += 1;
        const report = await real.run(workspace, selection, extraEnv, limit);
        const cache = extraEnv?.[RUNNER_CACHE_ENV];
        if (cache) cached.push(readdirSync(cache));
        return report;
      },
    };
    // The ids as the bot reads them from jest's console; this plain run writes jest's own report.
    const all = await real.run(dir, { kind: "all" });
    const failing = all.tests.filter((t) => t.status === "fail").map((t) => t.id);
    const passing = all.tests.filter((t) => t.status === "pass").map((t) => t.id);
    expect([failing.length, passing.length]).toEqual([1, 12]);
    expect(existsSync(join(dir, "coverage", "coverage-summary.json"))).toBe(true);
    rmSync(join(dir, "coverage"), { recursive: true });

    const js = await jsSpectra(dir, verifier, failing, passing);
    expect([js.runs, coverageRuns]).toEqual([3, 3]);
    expect(js.passing).toBe(12);
    expect(existsSync(join(dir, "coverage"))).toBe(false);
    expect(js.spectra.map((s) => s.failed)).toEqual([true]);
    // jest kept its transform cache there from the first run on (the sandbox's /tmp is new in each run).
    expect(cached).toHaveLength(3);
    expect(cached.every((names) => names.length > 0)).toBe(true);
    rmSync(dir, { recursive: true, force: true });
  }, 300_000);
});
