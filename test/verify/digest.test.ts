import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { cleanLogLine, splitLogLines } from "../../src/verify/digest/clean-log-line.ts";
import { digestLog } from "../../src/verify/digest/digest-log.ts";
import { digestReport } from "../../src/verify/digest/digest-report.ts";
import { summariseValue } from "../../src/verify/digest/summarise-value.ts";
import { describeMismatch, mismatchOf, summariseFailure } from "../../src/verify/digest/value-mismatch.ts";
import { parseJunit } from "../../src/verify/parsers/parse-junit.ts";
import type { TestReport } from "../../src/verify/test-report.ts";

const run = {
  argv: ["pytest"],
  exitCode: 1,
  signal: null,
  timedOut: false,
  durationMs: 10,
  output: "",
  outputBytes: 0,
  outputTruncated: false,
  isolation: "none" as const,
};

describe("digestLog", () => {
  const passing = [
    "[INFO] Scanning for projects...",
    "[INFO] Building demo 1.0",
    "[INFO] Tests run: 12, Failures: 0, Errors: 0",
    "[WARNING] deprecated API",
    "[INFO] BUILD SUCCESS",
  ];
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

  it("demotes a line longer than the part it reads when the passing log has it too", () => {
    // The failing log's lines are read up to 4 x maxLineChars; the passing log's must be cut alike.
    const long = `ERROR: warning repeated in every build ${"w".repeat(2000)}`;
    const log = [long, "all fine", "ERROR: the real failure"].join("\n");
    expect(digestLog(log, { passLog: `${long}\nall fine` }).lines).toEqual([3]);
  });

  it("stays within its line budget and truncates long lines", () => {
    const log = Array.from(
      { length: 500 },
      (_, i) => `ERROR: failure number ${i} ${"x".repeat(i === 0 ? 1000 : 1)}`,
    ).join("\n");
    const digest = digestLog(log, { maxLines: 20, maxLineChars: 100 });
    expect(digest.text.split("\n").length).toBeLessThanOrEqual(20);
    expect(digest.text).toContain("… (1024 chars)");
  });

  it("says so when nothing in the log looks like an error", () => {
    expect(digestLog("all good\nstill good\n").text).toBe("(no error lines found in the log)");
  });

  it("cleans GitHub Actions columns and Travis markers", () => {
    expect(cleanLogLine("build\tTest\t2021-12-01T13:01:04.3807878Z LogDifferTest > testGithubParsing() FAILED")).toBe(
      "LogDifferTest > testGithubParsing() FAILED",
    );
    expect(cleanLogLine("travis_fold:start:install\rInstalling")).toBe("Installing");
    expect(splitLogLines("a\r\nb\rc\nd")).toEqual(["a", "b", "c", "d"]);
  });

  it("strips colours, cursor moves and OSC 8 hyperlinks (as vitest and cargo print them)", () => {
    expect(
      cleanLogLine(
        "\u001b[1;31mFAIL\u001b[39;22m \u001b]8;;file:///src/a.ts\u0007src/a.ts\u001b]8;;\u0007 \u001b[2K\u001b[1Gdone",
      ),
    ).toBe("FAIL src/a.ts done");
  });
});

describe("digestReport", () => {
  it("lists failing tests with message, assertion, exception and the repository's frames with source", async () => {
    const tests = parseJunit(await readFile(new URL("../fixtures/reports/pytest-junit.xml", import.meta.url), "utf8"));
    const report: TestReport = { run, tests, source: "junit" };
    const digest = digestReport(report, {
      readSource: (file, line) =>
        file === "tests/test_calc.py" && line === 11 ? "    assert add(2, 2) == 5" : undefined,
    });
    const lines = digest.split("\n");
    expect(lines[0]).toBe("5 of 11 tests failing; command: pytest; exit 1");
    expect(digest).toContain(
      "1. tests/test_calc.py::test_add_wrong [fail]\n   message: assert 4 == 5 +  where 4 = add(2, 2)\n   at tests/test_calc.py:11: assert add(2, 2) == 5",
    );
    expect(digest).toContain("tests/test_calc.py::TestDivide::test_divide_by_zero [fail]");
    expect(digest).toContain("ZeroDivisionError");
    expect(digest).toContain("at calc.py:6");
    expect(digest).not.toContain("site-packages");
  });

  it("summarises large values and respects the budget", () => {
    const big = `assert [${Array.from({ length: 2000 }, (_, i) => i).join(", ")}] == []`;
    const tests = Array.from({ length: 50 }, (_, i) => ({
      id: `t${i}`,
      name: `t${i}`,
      status: "fail" as const,
      message: big,
    }));
    const digest = digestReport({ run, tests, source: "junit" }, { maxChars: 3000 });
    expect(digest.length).toBeLessThanOrEqual(3000);
    expect(digest).toMatch(/more failing tests not shown: budget of 3000 characters/);
    // Both sides of the comparison are stated: the digest says where they differ rather than cutting the list.
    expect(digest).toContain("expected (2 chars) and actual (");
    expect(digest).toContain("first differ at char 1, the difference in ⟦⟧: expected [⟦⟧] | actual [⟦0, 1, 2, 3");
  });

  // A rendered page of 2342 characters whose one wrong word sits in the middle: a head and
  // tail summary (`<value, 2342 chars: …>`) hides exactly what a plan must be checked against.
  const page = (word: string) => `${"<p>intro</p>".repeat(97)}<h1>${word}</h1>${"<p>outro</p>".repeat(97)}`;
  const nodeMessage = `Expected values to be strictly equal:\n+ actual - expected\n\n+ '${page("Helo")}'\n- '${page("Hello")}'\n`;

  it("keeps the first failing test's expected and actual values where they differ, in the middle of long values", () => {
    expect(page("Hello")).toHaveLength(2342);
    const report: TestReport = {
      run,
      source: "junit",
      tests: [
        {
          id: "test/render.test.js > renders the title",
          name: "renders the title",
          status: "fail",
          message: nodeMessage,
        },
      ],
    };
    const digest = digestReport(report);
    expect(digest).not.toContain("<value,");
    expect(digest).toContain("expected (2344 chars) and actual (2343 chars) first differ at char 1172");
    expect(digest).toMatch(/expected …[^|]*<p>intro<\/p><h1>Hel⟦l⟧o<\/h1><p>outro<\/p>[^|]*… \| actual/);
    expect(digest).toMatch(/\| actual …[^|]*<p>intro<\/p><h1>Hel⟦⟧o<\/h1><p>outro<\/p>/);
  });

  it("keeps a value up to the larger cap whole for the first failing test, and shows where later ones differ", () => {
    const whole = `AssertionError: ${"a".repeat(1200)}X${"a".repeat(1200)} != ${"a".repeat(1200)}Y${"a".repeat(1200)}`;
    const tests = [
      {
        id: "t1",
        name: "t1",
        status: "fail" as const,
        message: `assert ${"b".repeat(1100)}X${"b".repeat(1100)} == ${"b".repeat(1100)}Y${"b".repeat(100)}`.slice(
          0,
          2900,
        ),
      },
      { id: "t2", name: "t2", status: "fail" as const, message: whole },
    ];
    const digest = digestReport({ run, tests, source: "junit" }, { maxChars: 20_000 });
    // Under FIRST_MESSAGE_CHARS: whole.
    expect(digest).toContain(`message: ${tests[0]!.message}`);
    expect(digest).toContain("expected (2401 chars) and actual (2401 chars) first differ at char 1200");
    expect(digest).toMatch(/expected …a+⟦Y⟧a+… \| actual …a+⟦X⟧a+…/);
  });

  it("adds pytest's own diff of two long values, which its assertion line shortens", () => {
    const details = [
      "    def test_long():",
      ">       assert render() == expected()",
      "E       AssertionError: assert 'xxxxxxxxxxxx...xxxxxxxxxxxxx' == 'xxxxxxxxxxxx...xxxxxxxxxxxxx'",
      "E         ",
      "E         Skipping 1092 identical leading characters in diff, use -v to show",
      "E         - xxxxxxxxABDxxxxxxxxx",
      "E         ?           ^",
      "E         + xxxxxxxxABCxxxxxxxxx",
      "E         ?           ^",
    ].join("\n");
    const digest = digestReport({
      run,
      source: "junit",
      tests: [
        {
          id: "test_x.py::test_long",
          name: "test_long",
          status: "fail",
          message: "AssertionError: assert 'xxxxxxxxxxxx...xxxxxxxxxxxxx' == 'xxxxxxxxxxxx...xxxxxxxxxxxxx'",
          details,
        },
      ],
    });
    expect(digest).toContain(
      "diff: Skipping 1092 identical leading characters in diff, use -v to show | - xxxxxxxxABDxxxxxxxxx | ?           ^ | + xxxxxxxxABCxxxxxxxxx | ?           ^",
    );
  });

  it("shows the tail of the output when every test passed and the command still failed", () => {
    const digest = digestReport({
      run: { ...run, exitCode: 1, output: "✓ test/base.test.ts (4 tests)\nType Errors\nerror TS2345: not assignable" },
      tests: [{ id: "test/base.test.ts > withBase", name: "withBase", status: "pass" }],
      source: "junit",
    });
    expect(digest).toContain("0 of 1 tests failing");
    expect(digest).toContain("No test failed, yet the command exited 1. Output ends with:");
    expect(digest).toContain("error TS2345: not assignable");
    expect(digestReport({ run: { ...run, exitCode: 0, output: "all good" }, tests: [], source: "none" })).toContain(
      "No test results were read",
    );
    expect(
      digestReport({
        run: { ...run, exitCode: 0, output: "all good" },
        tests: [{ id: "a", name: "a", status: "pass" }],
        source: "junit",
      }),
    ).not.toContain("Output ends with");
  });

  it("shows the tail of the output when no results were read", () => {
    const digest = digestReport({
      run: { ...run, exitCode: 2, output: "collecting...\nImportError: No module named 'x'" },
      tests: [],
      source: "none",
    });
    expect(digest).toContain("No test results were read. Output ends with:");
    expect(digest).toContain("ImportError: No module named 'x'");
  });

  it("summariseValue keeps short values and describes long ones", () => {
    expect(summariseValue("[1, 2]")).toBe("[1, 2]");
    expect(summariseValue(`[${"1, ".repeat(200)}1]`, 60)).toMatch(/^<list, ~201 items, \d+ chars: \[1, 1, /);
  });
});

describe("expected and actual values in failure messages", () => {
  it("reads them from node:assert, pytest, unittest, Jest and chai messages", () => {
    expect(
      mismatchOf(
        "Expected values to be strictly equal:\n+ actual - expected\n\n+ 'short one'\n- 'short two'\n         ^\n",
      ),
    ).toEqual({ actual: "'short one'", expected: "'short two'" });
    expect(
      mismatchOf(
        "Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n    a: 1,\n+   b: 'x'\n-   b: 'y'\n  }\n",
      ),
    ).toEqual({ actual: "{\n  a: 1,\n  b: 'x'\n}", expected: "{\n  a: 1,\n  b: 'y'\n}" });
    expect(mismatchOf("assert 'a == b' == 'c'")).toEqual({ actual: "'a == b'", expected: "'c'" });
    expect(mismatchOf("AssertionError: [1, 2] != [1, 3]")).toEqual({ actual: "[1, 2]", expected: "[1, 3]" });
    expect(mismatchOf("expect(received).toBe(expected)\n\nExpected: 5\nReceived: 4")).toEqual({
      expected: "5",
      actual: "4",
    });
    expect(mismatchOf("expected 'abc' to equal 'abd'")).toEqual({ actual: "'abc'", expected: "'abd'" });
    expect(mismatchOf("ZeroDivisionError: division by zero")).toBeUndefined();
  });

  it("reads pytest's values from its assert line, not from the explanation under it", () => {
    // As pytest states a parametrized split test's failure (sqlparse, seen in a live run).
    const message = [
      "AssertionError: assert ['BEGIN WORK;... 1;\\nCOMMIT;'] == ['BEGIN WORK;...;', 'COMMIT;']",
      "  ",
      "  At index 0 diff: 'BEGIN WORK;\\nUPDATE t SET a = 1;\\nCOMMIT;' != 'BEGIN WORK;'",
      "  Right contains 2 more items, first extra item: 'UPDATE t SET a = 1;'",
    ].join("\n");
    expect(mismatchOf(message)).toEqual({
      actual: "['BEGIN WORK;... 1;\\nCOMMIT;']",
      expected: "['BEGIN WORK;...;', 'COMMIT;']",
    });
  });

  it("describes where two values first differ, with context either side", () => {
    expect(describeMismatch({ expected: "the quick brown fox", actual: "the quick red fox" }, 4)).toBe(
      "expected (19 chars) and actual (17 chars) first differ at char 10, the difference in ⟦⟧: expected …ick ⟦brown⟧ fox | actual …ick ⟦red⟧ fox",
    );
    expect(describeMismatch({ expected: "a\nb\nc", actual: "a\nb\nd" })).toContain("first differ at char 4 (line 3)");
  });

  it("summariseFailure keeps a message that fits and falls back to head and tail when no values are stated", () => {
    expect(summariseFailure("assert 4 ==\n 5", 400)).toBe("assert 4 == 5");
    expect(summariseFailure(`RuntimeError: ${"z".repeat(1000)}`, 200)).toMatch(
      /^<value, 1014 chars: RuntimeError: z+ … z+>$/,
    );
  });
});
