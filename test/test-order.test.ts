// The order a fresh clone runs its test files in (test/support/longest-first-sequencer.ts).
import { mkdtempSync, mkdirSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { DURATIONS_FILE, longestFirst, readDurations } from "./support/longest-first-sequencer.ts";

describe("test file order on a fresh clone", () => {
  it("runs files with no recorded duration first, largest first, then the recorded ones longest first", () => {
    const recorded = new Map([
      ["small-but-slow.test.ts", 200],
      ["big-but-quick.test.ts", 1],
      ["middle.test.ts", 40],
    ]);
    const sizes: Record<string, number> = {
      "small-but-slow.test.ts": 10,
      "big-but-quick.test.ts": 9_000,
      "middle.test.ts": 500,
      "new-small.test.ts": 20,
      "new-big.test.ts": 4_000,
    };
    const order = longestFirst(
      Object.keys(sizes),
      (f) => f,
      recorded,
      (f) => sizes[f] ?? 0,
    );
    expect(order).toEqual([
      "new-big.test.ts",
      "new-small.test.ts",
      "small-but-slow.test.ts",
      "middle.test.ts",
      "big-but-quick.test.ts",
    ]);
  });

  it("reads the committed table, and takes a malformed one as no table", () => {
    const committed = readDurations(join(import.meta.dirname, ".."));
    expect(committed.get("test/security/tampering-cli.test.ts")).toBeGreaterThan(10);
    const root = mkdtempSync(join(tmpdir(), "durations-"));
    mkdirSync(join(root, "test/support"), { recursive: true });
    writeFileSync(join(root, DURATIONS_FILE), '{"test/a.test.ts": "slow"}');
    expect(readDurations(root).size).toBe(0);
    writeFileSync(join(root, DURATIONS_FILE), "{not json");
    expect(readDurations(root).size).toBe(0);
    expect(readDurations(join(root, "missing")).size).toBe(0);
  });
});
