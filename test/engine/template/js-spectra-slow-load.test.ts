// A node --test file that blocks while it loads (a synchronous child process, as a test that
// scans /proc or probes the network at load time does). The watchdog's worker used to start
// its own precise coverage at launch, and a start clears V8's function call counts: landing in
// the middle of the blocked load, it wiped what the file had run before, differently from run to
// run. The loads run then missed lines the failing test's run kept, and those lines (ep 0)
// outranked the bug. Here every coverage run keeps the lines run before the block.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";

const SETUP = ["function settings() {", "  return { base: 10 };", "}", "module.exports = { settings };", ""].join("\n");
const CALC = ["function add(a, b) {", "  return a - b;", "}", "module.exports = { add };", ""].join("\n");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-spectra-slow-load-"));
  await mkdir(join(dir, "lib"));
  await mkdir(join(dir, "test"));
  await writeFile(join(dir, "package.json"), JSON.stringify({ name: "slow", scripts: { test: "node --test" } }));
  await writeFile(join(dir, "lib", "setup.js"), SETUP);
  await writeFile(join(dir, "lib", "calc.js"), CALC);
  await writeFile(
    join(dir, "test", "calc.test.js"),
    [
      'const test = require("node:test");',
      'const assert = require("node:assert");',
      'const { spawnSync } = require("node:child_process");',
      'const { settings } = require("../lib/setup.js");',
      'const { add } = require("../lib/calc.js");',
      "const base = settings().base;",
      // Blocks the main thread while the watchdog's worker starts.
      'spawnSync(process.execPath, ["-e", "setTimeout(() => {}, 700)"]);',
      'test("adds", () => assert.strictEqual(add(2, 3), 5));',
      'test("adds zero", () => assert.strictEqual(add(base, 0), 10));',
      'test("base", () => assert.strictEqual(base, 10));',
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("jsSpectra of test files that block while they load", () => {
  it("keeps what ran before the block: the loads' lines count for every passing test", async () => {
    const failing = "test/calc.test.js > test > adds";
    const passing = ["test/calc.test.js > test > adds zero", "test/calc.test.js > test > base"];
    const verifier = localVerifier(detectRunner(dir), { timeoutMs: 120_000 });
    // A limit, as the strategy gives: the watchdog is loaded into each test file's process.
    const js = await jsSpectra(dir, verifier, [failing], passing, () => ({
      timeoutMs: 120_000,
      reason: "the test's limit",
      perTestMs: 10_000,
    }));
    expect(js.spectra.map((s) => [s.id, s.failed])).toEqual([[failing, true]]);
    // settings() ran while the file loaded, before the block: in the failing test's run, and in
    // every passing test's (the loads run saw it too).
    expect(js.spectra[0]?.lines.get("lib/setup.js")).toEqual(new Set([1, 2, 4]));
    expect([1, 2].map((line) => js.passed.covering("lib/setup.js", line))).toEqual([2, 2]);
    // add ran in the failing test and in one passing test only.
    expect(js.passed.covering("lib/calc.js", 2)).toBe(1);
  }, 150_000);
});
