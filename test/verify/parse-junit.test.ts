import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { JunitParseError, parseJunit } from "../../src/verify/parsers/parse-junit.ts";
import { parsePytestConsole } from "../../src/verify/parsers/parse-pytest-console.ts";

const fixture = (name: string) => readFile(new URL(`../fixtures/reports/${name}`, import.meta.url), "utf8");

describe("parseJunit on pytest's real report", () => {
  it("reads every test with pytest node ids usable for selection", async () => {
    const tests = parseJunit(await fixture("pytest-junit.xml"));
    expect(tests.map((t) => `${t.id} ${t.status}`)).toEqual([
      "tests/test_calc.py::test_add pass",
      "tests/test_calc.py::test_add_wrong fail",
      "tests/test_calc.py::test_add_param[1-1-2] pass",
      "tests/test_calc.py::test_add_param[2-2-5] fail",
      "tests/test_calc.py::test_add_param[\\xe9-\\xfc-\\xe9\\xfc] pass",
      "tests/test_calc.py::TestDivide::test_divide pass",
      "tests/test_calc.py::TestDivide::test_divide_by_zero fail",
      "tests/test_calc.py::test_uses_broken_fixture error",
      "tests/test_calc.py::test_skipped skip",
      "tests/test_calc.py::test_expected_failure skip",
      "tests/test_calc.py::test_unicode_message fail",
    ]);
  });

  it("keeps the failure message, the traceback and unicode", async () => {
    const tests = parseJunit(await fixture("pytest-junit.xml"));
    const wrong = tests.find((t) => t.name === "test_add_wrong");
    expect(wrong?.message).toBe("assert 4 == 5\n +  where 4 = add(2, 2)");
    expect(wrong?.details).toContain(">       assert add(2, 2) == 5");
    expect(wrong?.file).toBe("tests/test_calc.py");
    expect(tests.find((t) => t.name === "test_uses_broken_fixture")?.message).toContain("fixture exploded");
    expect(tests.find((t) => t.name === "test_unicode_message")?.message).toContain("naïve ☃");
    expect(tests.find((t) => t.name === "test_divide_by_zero")?.message).toContain("ZeroDivisionError");
  });

  it("mocha's xunit report (no message attribute): node:assert's message kept whole with its diff, mocha's own diff and the stack left out", async () => {
    const [test] = parseJunit(await fixture("mocha-11-xunit-assert-diff.xml"), { root: "/tmp/t33" });
    expect(test?.message).toBe(
      "Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n    a: null,\n+   b: []\n-   b: null\n  }",
    );
    // chai's one-line message (which elides long values) gets mocha's diff of the values.
    const chai = `<testsuite><testcase classname="s" name="t"><failure>expected { Object (a, b) } to deeply equal { Object (a, b) }

      + expected - actual

       {
      -  "b": []
      +  "b": [null]
       }
      
AssertionError: expected { Object (a, b) } to deeply equal { Object (a, b) }
    at Context.&lt;anonymous&gt; (test/t.js:5:12)</failure></testcase></testsuite>`;
    expect(parseJunit(chai)[0]?.message).toBe(
      'expected { Object (a, b) } to deeply equal { Object (a, b) }\n+ expected - actual\n {\n-  "b": []\n+  "b": [null]\n }',
    );
  });

  it("builds ids for nested suites of other runners", () => {
    const xml = `<?xml version="1.0"?><testsuites><testsuite name="math"><testsuite name="adds"><testcase name="one plus one" time="0.002"/></testsuite><testcase name="fails"><failure message="expected 2 to be 3" type="AssertionError">stack</failure></testcase></testsuite></testsuites>`;
    expect(parseJunit(xml)).toEqual([
      {
        id: "math > adds > one plus one",
        name: "one plus one",
        file: undefined,
        status: "pass",
        durationMs: 2,
        message: undefined,
        details: undefined,
      },
      {
        id: "math > fails",
        name: "fails",
        file: undefined,
        status: "fail",
        durationMs: undefined,
        message: "expected 2 to be 3",
        details: "stack",
      },
    ]);
  });

  it("keeps no file a report names with `..` (the tests write the report), mapped from the root or not", () => {
    const xml = `<testsuites><testsuite name="s"><testcase name="a" file="/ws/repo/../../outside/victim.py"/><testcase name="b" file="../../outside/victim.py"/><testcase name="c" file="/ws/repo/test/ok.test.js"/></testsuite></testsuites>`;
    expect(parseJunit(xml, { root: "/ws/repo" }).map((t) => t.file)).toEqual([undefined, undefined, "test/ok.test.js"]);
  });

  it("rejects malformed XML with the line", () => {
    expect(() => parseJunit("<testsuites><testsuite><testcase name='x'></testsuite>")).toThrow(JunitParseError);
    expect(() => parseJunit("<testsuites><testsuite><testcase name='x'></testsuite>")).toThrow(
      /^malformed JUnit XML at line 1/,
    );
  });

  it("rejects XML that is not a JUnit report", () => {
    expect(() => parseJunit("<html><body/></html>")).toThrow("not a JUnit report");
  });
});

describe("parsePytestConsole on pytest's real coloured output", () => {
  it("reads the -rA summary despite ANSI colour codes", async () => {
    const tests = parsePytestConsole(await fixture("pytest-console.txt"));
    const byId = Object.fromEntries(tests.map((t) => [t.id, t.status]));
    expect(byId).toEqual({
      "tests/test_calc.py::test_add": "pass",
      "tests/test_calc.py::test_add_param[1-1-2]": "pass",
      "tests/test_calc.py::test_add_param[\\xe9-\\xfc-\\xe9\\xfc]": "pass",
      "tests/test_calc.py::TestDivide::test_divide": "pass",
      "tests/test_calc.py::test_expected_failure": "skip",
      "tests/test_calc.py::test_uses_broken_fixture": "error",
      "tests/test_calc.py::test_add_wrong": "fail",
      "tests/test_calc.py::test_add_param[2-2-5]": "fail",
      "tests/test_calc.py::TestDivide::test_divide_by_zero": "fail",
      "tests/test_calc.py::test_unicode_message": "fail",
    });
    expect(tests.find((t) => t.id.endsWith("test_divide_by_zero"))?.message).toBe(
      "ZeroDivisionError: division by zero",
    );
  });

  it("reads what survives of truncated output", async () => {
    const text = await fixture("pytest-console.txt");
    const cut = text.slice(0, text.indexOf("FAILED"));
    const tests = parsePytestConsole(cut);
    expect(tests.filter((t) => t.status === "fail")).toEqual([]);
    expect(tests.length).toBeGreaterThanOrEqual(5);
  });
});
