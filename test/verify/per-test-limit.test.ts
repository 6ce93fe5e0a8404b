// A per-test limit on every run: the first run of unchanged code whose test loops forever
// reports that test as failing, named, with its time, and the rest of the suite as it ran.
import { mkdtemp, mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { CandidateLimits } from "../../src/engine/candidate-limits.ts";
import { brokenRunReason } from "../../src/verify/load-failure.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { firstRunCpuMs, perTestWallMs, withPerTestLimit } from "../../src/verify/per-test-limit.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

const BITCOUNT =
  "def bitcount(n):\n    count = 0\n    while n:\n        n ^= n - 1\n        count += 1\n    return count\n";
const TESTS =
  "from bits import bitcount\n\n\ndef test_zero():\n    assert bitcount(0) == 0\n\n\ndef test_127():\n    assert bitcount(127) == 7\n";

describe("the per-test limit", () => {
  it("is a twentieth of the run's limit in CPU time, 2 s to 30 s, with a wall-clock limit ten times that; a caller's own per-test limit wins", () => {
    expect(firstRunCpuMs(600_000)).toBe(30_000);
    expect(firstRunCpuMs(50_000)).toBe(2_500);
    expect(firstRunCpuMs(20_000)).toBe(2_000);
    expect(firstRunCpuMs(3_600_000)).toBe(30_000);
    // Ten times the CPU limit, at least a fifth of the run's (10 s to 2 min), never past the run's own.
    expect(perTestWallMs(30_000, 600_000)).toBe(300_000);
    expect(perTestWallMs(1_000, 600_000)).toBe(120_000);
    expect(perTestWallMs(2_500, 50_000)).toBe(25_000);
    expect(perTestWallMs(1_000, 5_000)).toBe(5_000);
    expect(withPerTestLimit(undefined, 600_000)).toMatchObject({
      timeoutMs: 600_000,
      perTestMs: 30_000,
      perTestWallMs: 300_000,
      reason: "the per-test limit of 30 s of CPU time (300 s of wall-clock time for a test that blocks)",
    });
    expect(
      withPerTestLimit({ timeoutMs: 5_000, reason: "the candidate limit", perTestMs: 1_000 }, 600_000),
    ).toMatchObject({ perTestMs: 1_000, perTestWallMs: 5_000 });
    expect(withPerTestLimit({ timeoutMs: 5_000, reason: "the candidate limit" }, 600_000)).toMatchObject({
      timeoutMs: 5_000,
      perTestMs: 2_000,
      perTestWallMs: 5_000,
    });
  });

  it("stops a looping test in the first whole-suite run: a failing test with its time, not a broken command", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-loop-"));
    await mkdir(join(dir, "tests"));
    await writeFile(join(dir, "bits.py"), BITCOUNT);
    await writeFile(join(dir, "tests/test_bits.py"), TESTS);
    // No limit of the caller's: the run's own (50 s) gives each test 2.5 s of CPU time.
    const report = await localVerifier(detectRunner(dir, "python3 -m pytest tests"), {
      timeoutMs: 50_000,
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    }).run(dir, { kind: "all" });
    expect(report.tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "tests/test_bits.py::test_zero:pass",
      "tests/test_bits.py::test_127:fail",
    ]);
    expect(report.tests[1]?.message).toContain("timed out after 2.5 s of CPU time");
    expect(report.run.limit).toMatchObject({ name: "test-time" });
    expect(report.run.limit?.message).toMatch(
      /^timed out after 2\.5 s in tests\/test_bits\.py::test_127 \(the per-test limit of 2\.5 s of CPU time \(25 s of wall-clock time/,
    );
    expect(brokenRunReason(report, dir)).toBeUndefined();
    // The loop timed the limit, not the test: candidates are not given its time.
    const limits = new CandidateLimits(undefined, 600_000);
    limits.learn(report);
    expect(limits.limitFor({ kind: "tests", ids: ["tests/test_bits.py::test_127"] })?.perTestMs).toBeLessThan(5_000);
  }, 120_000);
});
