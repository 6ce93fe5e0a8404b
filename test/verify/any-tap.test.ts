// TAP from producers other than node --test, read from their real captured output.
import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { parseAnyTap } from "../../src/verify/parsers/parse-any-tap.ts";

const fixture = (name: string) => readFile(new URL(`../fixtures/reports/${name}`, import.meta.url), "utf8");

describe("parseAnyTap", () => {
  it("tape: each `# name` group is one test that fails with any of its assertions", async () => {
    const tests = parseAnyTap(await fixture("tape-tap.txt"));
    expect(tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "adds numbers:pass",
      "subtracts wrongly:fail",
      "skipped one:skip",
    ]);
    expect(tests[1]?.message).toBe("two minus one (equal)\nexpected: 2\nactual: 1");
    expect(tests[1]?.details).toContain("at: Test.<anonymous>");
  });

  it("tape: a value util.inspect prints as a block scalar (deepEqual's objects) read whole, with a subtest's", async () => {
    const tests = parseAnyTap(await fixture("tape-deep-equal-tap.txt"));
    expect(tests.map((t) => `${t.id}:${t.status}`)).toEqual([
      "long option takes a single dash as its value:fail",
      "outer:pass",
      "parses every parameter:fail",
    ]);
    expect(tests[0]?.message).toBe(
      "should be deeply equivalent (deepEqual)\nexpected: { long: '-', _: [] }\nactual: { _: [ '-' ], long: true }",
    );
    expect(tests[2]?.message).toBe(
      "should be deeply equivalent (deepEqual)\nexpected: { a: '1', b: '2', c: '3' }\nactual: {}",
    );
  });

  it("ava --tap: a flat stream of `ok N - file › title`, skips and failures", async () => {
    const tests = parseAnyTap(await fixture("ava-tap.txt"));
    expect(tests).toHaveLength(6);
    expect(
      tests
        .filter((t) => t.status === "pass")
        .map((t) => t.id)
        .sort(),
    ).toEqual(["a › adds numbers", "b › adds numbers"]);
    expect(tests.filter((t) => t.status === "skip")).toHaveLength(2);
    expect(tests.find((t) => t.id === "a › subtracts wrongly")).toMatchObject({
      status: "fail",
      message: "AssertionError: a › subtracts wrongly",
    });
  });

  it("node --test's nested TAP still goes to its own parser", async () => {
    const tests = parseAnyTap(await fixture("node-test-tap.txt"));
    expect(tests.map((t) => t.status)).toEqual(["pass", "fail", "pass", "pass", "fail", "skip"]);
  });

  it("output without a TAP result line gives no tests; tape's closing counts are not tests", () => {
    expect(parseAnyTap("make: Nothing to be done for 'test'.\n")).toEqual([]);
    expect(
      parseAnyTap("TAP version 13\n# one\nok 1 fine\n\n1..1\n# tests 1\n# pass  1\n\n# ok\n").map((t) => t.id),
    ).toEqual(["one"]);
  });

  it("repeated names get distinct ids, so selecting one never selects its twin", () => {
    const tests = parseAnyTap("TAP version 13\n# same\nok 1 a\n# same\nnot ok 2 b\n1..2\n");
    expect(tests.map((t) => `${t.id}:${t.status}`)).toEqual(["same:pass", "same (2):fail"]);
  });
});
