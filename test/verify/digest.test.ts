import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cleanLogLine, splitLogLines } from "../../src/verify/digest/clean-log-line.ts";
import { digestLog } from "../../src/verify/digest/digest-log.ts";
import { digestReport } from "../../src/verify/digest/digest-report.ts";
import { summariseValue } from "../../src/verify/digest/summarise-value.ts";
import { parseJunit } from "../../src/verify/parsers/parse-junit.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

const run = { argv: ["pytest"], exitCode: 1, signal: null, timedOut: false, durationMs: 10, output: "", outputBytes: 0, outputTruncated: false, isolation: "none" as const };

describe("digestLog", () => {
  const passing = ["[INFO] Scanning for projects...", "[INFO] Building demo 1.0", "[INFO] Tests run: 12, Failures: 0, Errors: 0", "[WARNING] deprecated API", "[INFO] BUILD SUCCESS"];
  const failing = [
    "2024-01-02T10:00:00.1234567Z [INFO] Scanning for projects...",
    "2024-01-02T10:00:00.2234567Z [INFO] Building demo 1.0",
    ...Array.from({ length: 300 }, (_, i) => `2024-01-02T10:00:01.0000000Z [INFO] Compiling file ${i}`),
    "2024-01-02T10:00:02.0000000Z [WARNING] deprecated API",
    "2024-01-02T10:00:03.0000000Z \u001b[1;31m[ERROR]\u001b[m Tests run: 12, Failures: 1, Errors: 0",
    "2024-01-02T10:00:03.1000000Z [ERROR] testAdd(demo.CalcTest)  Time elapsed: 0.01 s  <<< FAILURE!",
    "2024-01-02T10:00:03.2000000Z java.lang.AssertionError: expected:<4> but was:<5>",
    "2024-01-02T10:00:03.3000000Z \tat demo.CalcTest.testAdd(CalcTest.java:12)",
    "2024-01-02T10:00:04.0000000Z [INFO] BUILD FAILURE",
  ];

  it("keeps the failure with its stack, drops timestamps and colour, and compresses", () => {
    const digest = digestLog(failing.join("\r\n"), { passLog: passing.join("\n") });
    expect(digest.logLines).toBe(failing.length);
    expect(digest.lines).toEqual([304, 305, 306, 307, 308]);
    expect(digest.text).toBe(
      [
        "--- log lines 304-308 ---",
        "[ERROR] Tests run: 12, Failures: 1, Errors: 0",
        "[ERROR] testAdd(demo.CalcTest)  Time elapsed: 0.01 s  <<< FAILURE!",
        "java.lang.AssertionError: expected:<4> but was:<5>",
        "\tat demo.CalcTest.testAdd(CalcTest.java:12)",
        "[INFO] BUILD FAILURE",
      ].join("\n"),
    );
    expect(digest.logLines / digest.text.split("\n").length).toBeGreaterThan(20);
  });

  it("demotes lines that the passing log has too", () => {
    const log = ["ERROR: flaky warning that always appears", "all fine", "ERROR: the real failure"].join("\n");
    const withPass = digestLog(log, { passLog: "ERROR: flaky warning that always appears\nall fine" });
    expect(withPass.lines).toEqual([3]);
    expect(digestLog(log).lines).toEqual([1, 2, 3]);
  });

  it("stays within its line budget and truncates long lines", () => {
    const log = Array.from({ length: 500 }, (_, i) => `ERROR: failure number ${i} ${"x".repeat(i === 0 ? 1000 : 1)}`).join("\n");
    const digest = digestLog(log, { maxLines: 20, maxLineChars: 100 });
    expect(digest.text.split("\n").length).toBeLessThanOrEqual(20);
    expect(digest.text).toContain("… (1024 chars)");
  });

  it("says so when nothing in the log looks like an error", () => {
    expect(digestLog("all good\nstill good\n").text).toBe("(no error lines found in the log)");
  });

  it("cleans GitHub Actions columns and Travis markers", () => {
    expect(cleanLogLine("build\tTest\t2021-12-01T13:01:04.3807878Z LogDifferTest > testGithubParsing() FAILED")).toBe("LogDifferTest > testGithubParsing() FAILED");
    expect(cleanLogLine("travis_fold:start:install\rInstalling")).toBe("Installing");
    expect(splitLogLines("a\r\nb\rc\nd")).toEqual(["a", "b", "c", "d"]);
  });
});

describe("digestReport", () => {
  it("lists failing tests with message, assertion, exception and the repository's frames with source", async () => {
    const tests = parseJunit(await readFile(new URL("../fixtures/reports/pytest-junit.xml", import.meta.url), "utf8"));
    const report: TestReport = { run, tests, source: "junit" };
    const digest = digestReport(report, { readSource: (file, line) => (file === "tests/test_calc.py" && line === 11 ? "    assert add(2, 2) == 5" : undefined) });
    const lines = digest.split("\n");
    expect(lines[0]).toBe("5 of 11 tests failing; command: pytest; exit 1");
    expect(digest).toContain("1. tests/test_calc.py::test_add_wrong [fail]\n   message: assert 4 == 5 +  where 4 = add(2, 2)\n   at tests/test_calc.py:11: assert add(2, 2) == 5");
    expect(digest).toContain("tests/test_calc.py::TestDivide::test_divide_by_zero [fail]");
    expect(digest).toContain("ZeroDivisionError");
    expect(digest).toContain("at calc.py:6");
    expect(digest).not.toContain("site-packages");
  });

  it("summarises large values and respects the budget", () => {
    const big = `assert [${Array.from({ length: 2000 }, (_, i) => i).join(", ")}] == []`;
    const tests = Array.from({ length: 50 }, (_, i) => ({ id: `t${i}`, name: `t${i}`, status: "fail" as const, message: big }));
    const digest = digestReport({ run, tests, source: "junit" }, { maxChars: 3000 });
    expect(digest.length).toBeLessThanOrEqual(3000);
    expect(digest).toMatch(/more failing tests not shown: budget of 3000 characters/);
    expect(digest).toMatch(/<value, \d+ chars: assert \[0, 1, 2/);
  });

  it("shows the tail of the output when no results were read", () => {
    const digest = digestReport({ run: { ...run, exitCode: 2, output: "collecting...\nImportError: No module named 'x'" }, tests: [], source: "none" });
    expect(digest).toContain("No test results were read. Output ends with:");
    expect(digest).toContain("ImportError: No module named 'x'");
  });

  it("summariseValue keeps short values and describes long ones", () => {
    expect(summariseValue("[1, 2]")).toBe("[1, 2]");
    expect(summariseValue(`[${"1, ".repeat(200)}1]`, 60)).toMatch(/^<list, ~201 items, \d+ chars: \[1, 1, /);
  });
});
