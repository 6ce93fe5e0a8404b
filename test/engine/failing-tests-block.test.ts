// What the plan-verification stage (LPW, SLPW) is shown about the failing tests: each
// test's source and how it fails, with the expected and actual values kept where they
// differ even when they are long, and the block bounded.
import { describe, expect, it } from "vitest";
import { failingTestsBlock } from "../../src/engine/lpw/failing-tests-block.ts";
import { writeRepo } from "../support/python-task.ts";

describe("failingTestsBlock", () => {
  it("shows where a long expected value differs from the actual one, in the middle, within a bound", async () => {
    const dir = await writeRepo({
      "test/render.test.js": 'import { test } from "node:test";\n\ntest("renders the report", () => {});\n',
    });
    const report = (total: string) => `${"row;".repeat(2500)}${total}${"row;".repeat(2500)}`;
    const message = `Expected values to be strictly equal:\n+ actual - expected\n\n+ '${report("total=41")}'\n- '${report("total=42")}'\n`;
    const block = await failingTestsBlock(dir, [
      {
        id: "test/render.test.js > renders the report",
        name: "renders the report",
        file: "test/render.test.js",
        status: "fail",
        message,
      },
    ]);
    expect(block).toContain('test("renders the report"');
    expect(block).toContain("expected (20010 chars) and actual (20010 chars) first differ at char 10008");
    expect(block).toMatch(/expected …[^|]*row;total=4⟦2⟧row;[^|]*… \| actual …[^|]*row;total=4⟦1⟧row;[^|]*…/);
    // The 40,000-character message is not pasted whole into the prompt.
    expect(block.length).toBeLessThan(4000);
  });

  it("adds pytest's diff of two long values, which the assertion line shortens to their ends", async () => {
    const dir = await writeRepo({ "tests/test_page.py": "def test_page():\n    assert render() == expected()\n" });
    const details = [
      "E       AssertionError: assert 'xxxxxxxxxxxx...xxxxxxxxxxxxx' == 'xxxxxxxxxxxx...xxxxxxxxxxxxx'",
      "E         Skipping 1092 identical leading characters in diff, use -v to show",
      "E         - xxxxxxxxABDxxxxxxxxx",
      "E         ?           ^",
      "E         + xxxxxxxxABCxxxxxxxxx",
      "E         ?           ^",
    ].join("\n");
    const block = await failingTestsBlock(dir, [
      {
        id: "tests/test_page.py::test_page",
        name: "test_page",
        file: "tests/test_page.py",
        status: "fail",
        message: "AssertionError: assert 'xxxxxxxxxxxx...xxxxxxxxxxxxx' == 'xxxxxxxxxxxx...xxxxxxxxxxxxx'",
        details,
      },
    ]);
    expect(block).toContain("def test_page():");
    expect(block).toContain(
      "# pytest's diff: Skipping 1092 identical leading characters in diff, use -v to show | - xxxxxxxxABDxxxxxxxxx | ?           ^ | + xxxxxxxxABCxxxxxxxxx",
    );
  });
});

describe("failingTestsBlock for a parametrized pytest test", () => {
  const SOURCE = [
    "import pytest",
    "import sqlparse",
    "",
    "@pytest.mark.parametrize('begin', ['BEGIN TRANSACTION;', 'BEGIN WORK;', 'BEGIN TRAN;', 'BEGIN DEFERRED TRANSACTION;'])",
    "def test_split_after_begin(begin):",
    "    sql = begin + '\\nUPDATE t SET a = 1;'",
    "    assert sqlparse.split(sql) == [begin, 'UPDATE t SET a = 1;']",
    "",
  ].join("\n");
  // pytest -vv's message holds its full diff; the traceback's E lines hold the same diff again.
  const failing = (begin: string) => {
    const diff = [
      `-     '${begin}',`,
      `+     '${begin}\\n'`,
      "-     'UPDATE t SET a = 1;',",
      "+     'UPDATE t SET a = 1;'",
    ];
    return {
      id: `tests/test_split.py::test_split_after_begin[${begin}]`,
      name: `test_split_after_begin[${begin}]`,
      file: "tests/test_split.py",
      status: "fail" as const,
      message: [
        `AssertionError: assert ['${begin.slice(0, 10)}... a = 1;'] == ['${begin.slice(0, 10)}...t a = 1;']`,
        "",
        `  At index 0 diff: '${begin}\\nUPDATE t SET a = 1;' != '${begin}'`,
        "",
        "  Full diff:",
        "    [",
        ...diff.map((l) => `  ${l}`),
        "    ]",
      ].join("\n"),
      details: [`E       AssertionError: assert …`, ...diff.map((l) => `E         ${l}`)].join("\n"),
    };
  };
  const begins = ["BEGIN TRANSACTION;", "BEGIN WORK;", "BEGIN TRAN;", "BEGIN DEFERRED TRANSACTION;"];

  it("shows pytest's diff once, not again when the message holds it", async () => {
    const dir = await writeRepo({ "tests/test_split.py": SOURCE });
    const block = await failingTestsBlock(dir, [failing("BEGIN WORK;")]);
    expect(block).toContain("#     Full diff:");
    expect(block).toContain("#     -     'BEGIN WORK;',");
    expect(block).not.toContain("pytest's diff");
  });

  it("shows the first two cases' failures whole and the others' first lines, each with its parameters", async () => {
    const dir = await writeRepo({ "tests/test_split.py": SOURCE });
    const block = await failingTestsBlock(dir, begins.map(failing));
    expect(block.match(/def test_split_after_begin\(begin\):/g)).toHaveLength(1);
    expect(block).toContain(
      "# (the source above, once, for its 4 failing cases; after the first 2, how each fails in one line)",
    );
    for (const begin of begins) {
      expect(block).toContain(`# tests/test_split.py::test_split_after_begin[${begin}]  parameters: begin='${begin}'`);
      expect(block).toContain(`# fails now with: AssertionError: assert ['${begin.slice(0, 10)}... a = 1;']`);
    }
    expect(block.match(/Full diff:/g)).toHaveLength(2);
    expect(block).toContain("At index 0 diff: 'BEGIN WORK;");
    expect(block).not.toContain("At index 0 diff: 'BEGIN TRAN;");
  });
});

describe("failingTestsBlock for a JavaScript test named by its title only", () => {
  const SUITE = [
    "'use strict';",
    "",
    "describe('Anchor on an empty node', function () {",
    "  it('resolves the alias', function () {",
    "    assert.deepStrictEqual(load('a: &a\\nb: *a\\n'), { a: null, b: null });",
    "  });",
    "});",
    "",
    "describe('Anchor on a scalar', function () {",
    "  it('resolves the alias', function () {",
    "    assert.deepStrictEqual(load('a: &a 1\\nb: *a\\n'), { a: 1, b: 1 });",
    "  });",
    "});",
    "",
  ].join("\n");

  it("finds the call in the repository's test files, in the describe the id names, by its true line numbers", async () => {
    const dir = await writeRepo({
      "lib/loader.js": "module.exports = {};\n",
      "test/issues/anchor.js": SUITE,
      "test/issues/other.js": "it('something else', function () {});\n",
    });
    // As an old mocha's xunit report names it: the suites joined by spaces, no file, no stack.
    const block = await failingTestsBlock(dir, [
      {
        id: "Issues Anchor on a scalar > resolves the alias",
        name: "resolves the alias",
        status: "fail",
        message: "Expected values to be strictly deep-equal:\n+ actual - expected\n\n  {\n+   b: []\n-   b: 1\n  }",
      },
    ]);
    expect(block).toBe(
      [
        "# test/issues/anchor.js",
        "9|describe('Anchor on a scalar', function () {",
        "10|  it('resolves the alias', function () {",
        "11|    assert.deepStrictEqual(load('a: &a 1\\nb: *a\\n'), { a: 1, b: 1 });",
        "12|  });",
        "# Issues Anchor on a scalar > resolves the alias",
        "# fails now with: Expected values to be strictly deep-equal:",
        "#   + actual - expected",
        "#",
        "#     {",
        "#   +   b: []",
        "#   -   b: 1",
        "#     }",
      ].join("\n"),
    );
  });

  it("keeps every line of a long diff, each long one cut with the cut marked", async () => {
    const dir = await writeRepo({ "test/a.test.js": "test('renders', () => {\n  check();\n});\n" });
    const long = `${"x".repeat(1000)}y${"x".repeat(1000)}`;
    const block = await failingTestsBlock(dir, [
      {
        id: "renders",
        name: "renders",
        status: "fail",
        message: `Expected values to be strictly equal:\n+ actual - expected\n\n+ '${long}'\n- 'short'`,
      },
    ]);
    expect(block).toContain("1|test('renders', () => {");
    expect(block).toMatch(/# {3}\+ 'x{100,} …\(1\d\d\d chars cut\)… x{100,}'\n# {3}- 'short'\n/);
    expect(block.length).toBeLessThan(1500);
  });
});
