// libtest's console output from a real `cargo test --no-fail-fast` (fixtures/reports/README.md):
// unit tests in nested modules, an ignored test, an integration test binary and doc tests.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseCargoTest } from "../../src/verify/parsers/parse-cargo-test.ts";
import { countByStatus } from "../../src/verify/test-report.ts";

const fixture = () => readFile(new URL("../fixtures/reports/cargo-test.txt", import.meta.url), "utf8");

describe("parseCargoTest", () => {
  it("reads every test binary's results as libtest's own summaries count them", async () => {
    const tests = parseCargoTest(await fixture());
    // The summaries: 3 passed, 2 failed, 1 ignored; 2 passed; 1 passed, 1 failed.
    expect(countByStatus(tests)).toEqual({ pass: 6, fail: 3, error: 0, skip: 1 });
    expect(tests.filter((t) => t.status === "fail").map((t) => t.id)).toEqual([
      "tests::largest",
      "tests::parsing::reads_subtractive_pairs",
      "src/lib.rs - to_roman (line 10)",
    ]);
    expect(tests.find((t) => t.id === "empty_is_not_a_number")).toMatchObject({
      status: "pass",
      file: "tests/round_trip.rs",
    });
    expect(tests.find((t) => t.id === "tests::round_trip_all")).toMatchObject({
      status: "skip",
      name: "round_trip_all",
      file: "src/lib.rs",
    });
  });

  it("gives each failure its panic message, the doc test's from its stderr", async () => {
    const tests = parseCargoTest(await fixture());
    const largest = tests.find((t) => t.id === "tests::largest");
    expect(largest?.message).toBe("assertion `left == right` failed");
    expect(largest?.details).toContain('left: Some("MMMDCCCCXCIX")');
    const doc = tests.find((t) => t.id === "src/lib.rs - to_roman (line 10)");
    expect(doc?.message).toBe("assertion `left == right` failed");
    expect(doc?.details).toContain('right: Some("MCMXCIV")');
  });

  it("reads nothing from output that is not libtest's", () => {
    expect(
      parseCargoTest("error[E0425]: cannot find value `x` in this scope\nerror: could not compile `roman`"),
    ).toEqual([]);
  });
});
