// `autogen fix`'s progress lines: a candidate stopped by its time limit says so.
import { describe, expect, it } from "vitest";
import { progressPrinter } from "../../src/cli/progress.ts";

describe("progressPrinter", () => {
  it("shows a timed-out candidate's limit instead of its counts, without the long reason", () => {
    const lines: string[] = [];
    const printer = progressPrinter((text) => lines.push(text), false);
    printer.onProgress({
      kind: "attempt",
      index: 1,
      total: 3,
      description: "1 → 0 (lib.py:7)",
      passed: 0,
      failed: 2,
      limit: "timed out after 1.1 s in test_lib.py::test_all_above (the candidate limit: 2 test(s) × 1.05 s …)",
    });
    printer.onProgress({
      kind: "attempt",
      index: 2,
      total: 3,
      description: "`<` → `>` (lib.py:5)",
      passed: 4,
      failed: 0,
    });
    expect(lines[0]).toMatch(
      /\] attempt 1\/3: 1 → 0 \(lib\.py:7\) → timed out after 1\.1 s in test_lib\.py::test_all_above\n$/,
    );
    expect(lines[1]).toMatch(/\] attempt 2\/3: `<` → `>` \(lib\.py:5\) → 4 passed, 0 failed\n$/);
  });
});
