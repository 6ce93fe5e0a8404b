// A node --test test whose code under test loops synchronously: the coverage run stops it at
// the per-test limit by killing its process, which then writes no V8 coverage of its own. The
// watchdog writes the coverage it kept, so the failing test's spectrum holds the loop's lines
// (without them the template strategy found "no line outside the tests executed by a failing
// test" and stopped with nothing to localise).
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { jsSpectra } from "../../../src/engine/template/js-spectra.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";

const SOURCE = [
  "function bitcount(n) {",
  "  let count = 0;",
  "  while (n !== 0) {",
  "    n ^= n - 1;",
  "    count += 1;",
  "  }",
  "  return count;",
  "}",
  "function unused() {",
  "  return 0;",
  "}",
  "module.exports = { bitcount, unused };",
  "",
].join("\n");

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-spectra-loop-"));
  await mkdir(join(dir, "src"));
  await mkdir(join(dir, "test"));
  await writeFile(join(dir, "src", "bits.js"), SOURCE);
  await writeFile(
    join(dir, "test", "bits.test.js"),
    [
      'const test = require("node:test");',
      'const assert = require("node:assert");',
      'const { bitcount } = require("../src/bits.js");',
      'test("seven bits of 127", () => assert.equal(bitcount(127), 7));',
      "",
    ].join("\n"),
  );
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe("jsSpectra of a test that loops", () => {
  it("holds the loop's lines for the test the per-test limit stopped", async () => {
    const id = "test/bits.test.js > test > seven bits of 127";
    const verifier = localVerifier(detectRunner(dir, "node --test"), { timeoutMs: 120_000 });
    const { spectra } = await jsSpectra(dir, verifier, [id], [], () => ({
      timeoutMs: 120_000,
      reason: "the test's limit",
      perTestMs: 1_000,
    }));
    expect(spectra.map((s) => [s.id, s.failed])).toEqual([[id, true]]);
    const lines = [...(spectra[0]?.lines.get("src/bits.js") ?? [])].sort((a, b) => a - b);
    // The loop's guard and body ran; `unused` never ran.
    expect(lines).toEqual(expect.arrayContaining([2, 3, 4, 5]));
    expect(lines).not.toContain(10);
  }, 150_000);
});
