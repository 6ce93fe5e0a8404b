// Each runner's real report and console output (captured, see fixtures/reports/README.md).
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseGoTest } from "../../src/verify/parsers/parse-go-test.ts";
import { parseJunit } from "../../src/verify/parsers/parse-junit.ts";
import { parseTap } from "../../src/verify/parsers/parse-tap.ts";
import { parseTreeConsole } from "../../src/verify/parsers/parse-tree-console.ts";
import type { TestCaseResult } from "../../src/verify/test-report.ts";

const fixture = (name: string) => readFile(new URL(`../fixtures/reports/${name}`, import.meta.url), "utf8");
const statuses = (tests: TestCaseResult[]) => tests.map((t) => `${t.name}:${t.status}`);
const JS = [
  "adds two numbers:pass",
  "adds wrongly on purpose:fail",
  "handles naïve unicode ☃:pass",
  "divides:pass",
  "throws on zero:fail",
  "is skipped:skip",
];

describe("JUnit reports of JS and Go runners", () => {
  it("node --test: nested suites, absolute paths made relative", async () => {
    const tests = parseJunit(await fixture("node-test-junit.xml"), { root: "/tmp/jscap" });
    expect(statuses(tests)).toEqual(JS);
    expect(tests[1]).toMatchObject({
      id: "test/calc.test.js > calc.add > adds wrongly on purpose",
      file: "test/calc.test.js",
      message: "Expected values to be strictly equal:\n\n4 !== 5",
    });
  });

  it("vitest", async () => {
    const tests = parseJunit(await fixture("vitest-junit.xml"));
    expect(tests.map((t) => t.status)).toEqual(JS.map((s) => s.split(":")[1]));
    expect(tests[4]).toMatchObject({ id: "test/calc.test.js > calc > divide > throws on zero", status: "fail" });
    expect(tests[4]?.details).toContain("RangeError: division by zero");
  });

  it("jest-junit", async () => {
    const tests = parseJunit(await fixture("jest-junit.xml"));
    expect(tests.map((t) => t.status)).toEqual(JS.map((s) => s.split(":")[1]));
    expect(tests[1]?.message).toBe("assert.strictEqual(received, expected)");
    expect(tests[1]?.details).toContain("Expected value to strictly be equal to:");
  });

  it("mocha xunit", async () => {
    const tests = parseJunit(await fixture("mocha-xunit.xml"), { root: "/tmp/jscap" });
    expect(statuses(tests)).toEqual(JS);
    expect(tests[0]?.id).toBe("test/calc.test.js > calc add > adds two numbers");
  });

  it("gotestsum: subtests and skips", async () => {
    const tests = parseJunit(await fixture("gotestsum-junit.xml"));
    const byName = Object.fromEntries(tests.map((t) => [t.name, t.status]));
    expect(byName).toMatchObject({
      TestAdd: "pass",
      TestAddWrong: "fail",
      "TestTable/small": "pass",
      "TestTable/wrong": "fail",
      TestSkipped: "skip",
      TestDivideByZero: "pass",
    });
  });
});

describe("console fallbacks", () => {
  it("node --test TAP: tests only (suites skipped), with messages and files", async () => {
    const tests = parseTap(await fixture("node-test-tap.txt"));
    expect(statuses(tests)).toEqual(JS);
    expect(tests[1]).toMatchObject({
      id: "calc > add > adds wrongly on purpose",
      file: "/tmp/jscap/test/calc.test.js",
      message: "AssertionError: Expected values to be strictly equal:\n\n4 !== 5",
    });
    expect(tests[4]?.message).toBe("RangeError: division by zero");
  });

  it("vitest", async () => {
    const tests = parseTreeConsole(await fixture("vitest-console.txt"), "vitest");
    expect(statuses(tests)).toEqual(JS);
    expect(tests[0]?.id).toBe("test/calc.test.js > adds two numbers");
  });

  it("jest: suites from indentation", async () => {
    const tests = parseTreeConsole(await fixture("jest-console.txt"), "jest");
    expect(statuses(tests)).toEqual(JS);
    expect(tests[4]?.id).toBe("test/calc.test.js > calc > divide > throws on zero");
  });

  it("mocha spec", async () => {
    const tests = parseTreeConsole(await fixture("mocha-spec.txt"), "mocha");
    expect(statuses(tests)).toEqual(JS);
    expect(tests[1]?.id).toBe("calc > add > adds wrongly on purpose");
  });

  it("go test -v: subtests, skips, failure logs; a parent failing only through a subtest is not counted twice", async () => {
    const tests = parseGoTest(await fixture("go-test-v.txt"));
    expect(tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "TestAdd:pass",
      "TestAddWrong:fail",
      "TestTable/small:pass",
      "TestTable/wrong:fail",
      "TestSkipped:skip",
      "TestDivideByZero:pass",
    ]);
    expect(tests[1]?.message).toBe("calc_test.go:13: Add(2, 2) = 4, want 5");
  });

  it("truncated output keeps what was complete", async () => {
    const text = await fixture("go-test-v.txt");
    expect(parseGoTest(text.slice(0, text.indexOf("=== RUN   TestTable"))).map((t) => t.id)).toEqual([
      "TestAdd",
      "TestAddWrong",
    ]);
  });
});
