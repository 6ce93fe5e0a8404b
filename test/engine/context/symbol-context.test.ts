// Context by symbol on a realistic repository: the faulty method of a 2,000+-line module
// shown whole with true line numbers, its class header and imports; left-out lines named
// exactly; docs/conf.py and setup.py kept out unless the issue names them.
import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { buildContext } from "../../../src/engine/context/build-context.ts";
import { failureFrames } from "../../../src/engine/context/failure-frames.ts";
import { renderRanges } from "../../../src/engine/context/line-ranges-view.ts";
import { symbolsOf } from "../../../src/engine/context/symbols.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { BUGGY_LINE_TEXT, gridRepo, ISSUE } from "../../support/context-fixture.ts";
import { writeRepo } from "../../support/python-task.ts";

useHttpMock();

/** Every numbered line shown (`12|text`) is line 12 of the file. */
function expectTrueLineNumbers(code: string, path: string, fileText: string): number {
  const lines = fileText.split("\n");
  const section = code.split(/\n(?=--- )/).find((s) => s.startsWith(`--- ${path}`)) ?? "";
  let checked = 0;
  for (const m of section.matchAll(/^(\d+)\|(.*)$/gm)) {
    expect(m[2]).toBe(lines[Number(m[1]) - 1]);
    checked += 1;
  }
  return checked;
}

describe("the marker for lines left out", () => {
  it("names the exact lines hidden between two shown ranges", () => {
    const lines = Array.from({ length: 500 }, (_, i) => `line ${i + 1}`);
    const text = renderRanges(lines, [
      { start: 396, end: 443 },
      { start: 1, end: 180 },
    ]);
    expect(text).toContain("180|line 180\n⋮ lines 181-395 not shown\n396|line 396");
    expect(text).toContain("443|line 443\n⋮ lines 444-500 not shown");
    expect(text).not.toContain("line 181\n");
  });

  it("joins ranges separated only by blank lines and never cuts inside a range", () => {
    const lines = [
      "def a():",
      "    return 1",
      "",
      "",
      "def b():",
      "    return 2",
      "x = configure(1, 2, 3, 4)",
      "def c():",
    ];
    expect(
      renderRanges(lines, [
        { start: 1, end: 2 },
        { start: 5, end: 6 },
        { start: 8, end: 8 },
      ]),
    ).toBe(
      [
        "1|def a():",
        "2|    return 1",
        "3|",
        "4|",
        "5|def b():",
        "6|    return 2",
        "⋮ lines 7-7 not shown",
        "8|def c():",
      ].join("\n"),
    );
  });

  it("shows a gap of one or two lines when that is no longer than its marker", () => {
    const lines = [
      "function f(a, b) {",
      "  s=a;",
      "  s+=b;",
      "  return s;",
      "}",
      "f(1, 2);",
      "console.log(f(3, 4), f(5, 6));",
    ];
    // Lines 2-3 (18 characters) instead of "⋮ lines 2-3 not shown" (21), line 5 likewise; line 7 (32) stays marked.
    expect(
      renderRanges(lines, [
        { start: 1, end: 1 },
        { start: 4, end: 4 },
        { start: 6, end: 6 },
      ]),
    ).toBe(
      [
        "1|function f(a, b) {",
        "2|  s=a;",
        "3|  s+=b;",
        "4|  return s;",
        "5|}",
        "6|f(1, 2);",
        "⋮ lines 7-7 not shown",
      ].join("\n"),
    );
    // Three lines are marked, however short.
    expect(
      renderRanges(
        ["a", "b", "c", "d", "e"],
        [
          { start: 1, end: 1 },
          { start: 5, end: 5 },
        ],
      ),
    ).toBe("1|a\n⋮ lines 2-4 not shown\n5|e");
  });
});

describe("context by symbol", () => {
  it("shows the faulty method deep in a 2,000+-line module whole, with its class header and imports, and no Sphinx config", async () => {
    const dir = await writeRepo(gridRepo());
    const module = await readFile(join(dir, "grid/table.py"), "utf8");
    const buggyLine = module.split("\n").indexOf(BUGGY_LINE_TEXT) + 1;
    expect(buggyLine).toBeGreaterThan(1700);
    const context = await buildContext(dir, { query: ISSUE, mentioned: [], isTestFile });
    expect(context.code).toContain(`${buggyLine}|${BUGGY_LINE_TEXT}`);
    expect(context.code).toContain("1737|    def wrap_text_to_colwidths(self, colwidths):");
    expect(context.code).toContain("1725|class Table:");
    expect(context.code).toContain("9|import textwrap");
    expect(context.code).not.toContain("Copyright");
    expect(context.code).not.toContain("docs/conf.py");
    expect(context.code).not.toContain("html_theme_options");
    expect(context.code).not.toContain("setup.py");
    expect(context.symbols.map((s) => s.name)).toContain("Table.wrap_text_to_colwidths");
    expect(expectTrueLineNumbers(context.code, "grid/table.py", module)).toBeGreaterThan(30);
    expect(context.code.length).toBeLessThanOrEqual(12_000);
    // Every hidden stretch is named with its true lines.
    for (const m of context.code.matchAll(/⋮ lines (\d+)-(\d+) not shown/g))
      expect(Number(m[1])).toBeLessThanOrEqual(Number(m[2]));
  });

  it("leaves the examples beside the docs out, and shows a short but wordy module by its symbols, not whole", async () => {
    // A package entry of 40 lines that is mostly docstrings, and an example script using the same words as the issue.
    const entry = [
      '"""Grid: tables wrapped to column widths."""',
      "from grid.table import Table",
      "",
      ...Array.from({ length: 6 }, (_, i) => [
        `def helper_${i}(table, colwidths):`,
        `    """${"Wrap text to column widths with the table's rules; ".repeat(6)}"""`,
        "    return table",
        "",
      ]).flat(),
    ].join("\n");
    expect(entry.length).toBeGreaterThan(2_000);
    expect(entry.split("\n").length).toBeLessThan(80);
    const dir = await writeRepo({
      ...gridRepo(),
      "grid/__init__.py": entry,
      "examples/wrap_demo.py":
        "from grid.table import Table\n\n# wrap text to colwidths in a table\nTable().wrap_text_to_colwidths([3])\n",
    });
    const context = await buildContext(dir, {
      query: `${ISSUE}\ngrid wrap_text_to_colwidths helper_0`,
      mentioned: [],
      isTestFile,
    });
    expect(context.code).not.toContain("examples/wrap_demo.py");
    expect(context.files).not.toContain("examples/wrap_demo.py");
    // The entry module is shown, but by its symbols: not its every docstring.
    const shownEntry = context.code.split(/\n(?=--- )/).find((s) => s.startsWith("--- grid/__init__.py")) ?? "";
    expect(shownEntry).not.toBe("");
    expect(shownEntry.match(/""" ?Wrap text to column widths/g)?.length ?? 0).toBeLessThan(6);
  });

  it("shows docs/conf.py when the issue names it", async () => {
    const dir = await writeRepo(gridRepo());
    const context = await buildContext(dir, {
      query: "docs/conf.py sets html_theme_options wrap_text wrongly",
      mentioned: ["docs/conf.py"],
      isTestFile,
    });
    expect(context.files[0]).toBe("docs/conf.py");
    expect(context.code).toContain("html_theme_options");
  });

  it("starts from the innermost stack frame in the repository, and lists callers and callees as signatures", async () => {
    const dir = await writeRepo(gridRepo());
    const details = [
      "test/test_wrap.py:8: in test_wrap_width",
      `    assert_equal(expected, tabulate([["alpha beta"]], maxcolwidths=[width]))`,
      "grid/table.py:2119: in tabulate",
      "    return Table(rows, headers).render(maxcolwidths)",
      `${dir}/grid/table.py:1747: in wrap_text_to_colwidths`,
      "    wrapped = textwrap.wrap(str(cell), width)",
      "E   ValueError: invalid width 0 (must be > 0)",
    ].join("\n");
    const frames = failureFrames(
      [{ id: "test/test_wrap.py::test_wrap_width[zero]", name: "test_wrap_width[zero]", status: "fail", details }],
      dir,
    );
    expect(frames).toEqual([
      { file: "grid/table.py", line: 1747 },
      { file: "grid/table.py", line: 2119 },
      { file: "test/test_wrap.py", line: 8 },
    ]);
    const context = await buildContext(dir, { query: "crash", mentioned: [], frames, isTestFile, maxChars: 1500 });
    expect(context.symbols[0]).toMatchObject({
      name: "Table.wrap_text_to_colwidths",
      reason: "stack-frame",
      startLine: 1737,
      endLine: 1750,
    });
    expect(context.symbols[1]).toMatchObject({ name: "tabulate", reason: "stack-frame" });
    expect(context.code).toContain("1725|class Table:");
    expect(context.code).toContain("1729|\n⋮ lines 1730-1736 not shown\n1737|    def wrap_text_to_colwidths");
    expect(context.code).toMatch(
      /caller of wrap_text_to_colwidths grid\/table\.py:1752: def render\(self, colwidths=None\):/,
    );
    expect(context.code).not.toContain("1753 |");
  });

  it("finds a function the issue names by its name", async () => {
    const dir = await writeRepo(gridRepo());
    const context = await buildContext(dir, {
      query: "crash",
      mentioned: [],
      named: ["_render_percent_cell_77"],
      isTestFile,
      maxChars: 2000,
    });
    expect(context.symbols[0]).toMatchObject({ name: "_render_percent_cell_77", reason: "named" });
    expect(context.code).toMatch(/\d+\|def _render_percent_cell_77\(value, fmt="", missing=""\):/);
  });

  it("sees pre-ES2015 JavaScript: var-assigned functions and CommonJS exports are symbols (qs, minimist)", async () => {
    const padding = Array.from(
      { length: 40 },
      (_, i) => `var helper${i} = function helper${i}(value) {\n    return value + ${i};\n};\n`,
    ).join("\n");
    const parse = [
      "'use strict';",
      "",
      "var utils = require('./utils');",
      "",
      padding,
      "var parseValues = function parseQueryStringValues(str, options) {",
      "    var limit = options.parameterLimit === Infinity ? undefined : options.parameterLimit;",
      "    var parts = str.split('&', options.throwOnLimitExceeded ? limit + 1 : limit);",
      "    return parts;",
      "};",
      "",
      "module.exports = function (str, opts) {",
      "    return parseValues(str, opts || {});",
      "};",
      "",
    ].join("\n");
    expect((await symbolsOf("lib/parse.js", parse)).map((s) => s.name).slice(-2)).toEqual([
      "parseValues",
      "module.exports",
    ]);
    expect(
      (await symbolsOf("a.js", "exports.run = () => 1;\nThing.prototype.go = function () {};\n")).map((s) => s.name),
    ).toEqual(["exports.run", "Thing.prototype.go"]);
    const dir = await writeRepo({ "lib/parse.js": parse, "lib/utils.js": "exports.x = 1;\n" });
    const context = await buildContext(dir, {
      query: "qs",
      mentioned: [],
      named: ["parseValues"],
      isTestFile,
      maxChars: 2000,
    });
    // Before: lib/parse.js had no symbol at all, so the function the issue names was never shown.
    expect(context.symbols[0]).toMatchObject({ path: "lib/parse.js", name: "parseValues", reason: "named" });
    expect(context.code).toMatch(/\d+\|var parseValues = function parseQueryStringValues\(str, options\) \{/);
    expect(context.code).toContain("limit + 1 : limit);");
  });

  it("shows localize candidates by their best-matching symbols, not their licence headers", async () => {
    const { requests } = scriptAnswers([
      { stage: "localize", content: { files: ["grid/table.py"], functions: ["Table.wrap_text_to_colwidths"] } },
    ]);
    const files = {
      ...gridRepo(),
      ...Object.fromEntries(
        Array.from({ length: 6 }, (_, i) => [
          `grid/extra_${i}.py`,
          `# Copyright header ${i}\n\ndef wrap_column_${i}(text, width):\n    return text[:width]\n`,
        ]),
      ),
    };
    const dir = await writeRepo(files);
    const context = await buildContext(dir, { query: ISSUE, mentioned: [], isTestFile, maxFiles: 2, llm: testLlm() });
    const prompt = requests[0]?.messages[1]?.content ?? "";
    expect(prompt).toContain("--- grid/table.py\n");
    expect(prompt).toMatch(/\n1737\| {4}def wrap_text_to_colwidths\(self, colwidths\):/);
    expect(prompt).not.toContain("Permission is hereby granted");
    expect(context.symbols[0]).toMatchObject({ name: "Table.wrap_text_to_colwidths", reason: "model" });
  });
});
