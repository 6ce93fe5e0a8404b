// The code a failing test reaches is shown whole although no stack frame names it: a JS
// function two requires away from the test (`require('../')` → package.json's main →
// `require('./parse')`), and a 300-line Python function behind a package's __init__.py;
// what the issue's own code calls comes first; a name-matched function the test never
// reaches stays out. Real files, the real tree-sitter parsers.
import { rm } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { failureContext } from "../../../src/engine/context/failure-context.ts";
import { issueImports } from "../../../src/engine/context/test-reach.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { issueContext } from "../../../src/engine/reproduce/reproduce-issue.ts";
import type { TestCaseResult } from "../../../src/verify/test-report.ts";
import { numberedLine } from "../../../src/workspace/numbered-line.ts";
import { writeRepo } from "../../support/python-task.ts";

/** Lines from..to of the file appear in the code with their true numbers. */
function shownWhole(code: string, path: string, text: string, from: number, to: number): boolean {
  const section = code.split(/\n(?=--- )/).find((s) => s.startsWith(`--- ${path}`)) ?? "";
  const lines = text.split("\n");
  const shown = new Set(section.split("\n"));
  for (let n = from; n <= to; n++) if (!shown.has(numberedLine(n, lines[n - 1] ?? ""))) return false;
  return true;
}

function lineOf(text: string, needle: string): number {
  return text.split("\n").findIndex((l) => l.includes(needle)) + 1;
}

/** A filler function of `n` statements that uses the issue's words, so word retrieval alone finds it too. */
function jsFiller(name: string, n: number): string {
  const body = Array.from(
    { length: n },
    (_, i) =>
      `    out.push(options.parameterLimit === Infinity && options.throwOnLimitExceeded ? value${i % 3} : ${i});`,
  );
  return `var ${name} = function ${name}(value0, value1, value2, options) {\n    var out = [];\n${body.join("\n")}\n    return out;\n};\n`;
}

const PARSE_VALUES = [
  "var parseValues = function parseQueryStringValues(str, options) {",
  "    var obj = {};",
  "    var limit = options.parameterLimit === Infinity ? undefined : options.parameterLimit;",
  "    var parts = str.split(options.delimiter, options.throwOnLimitExceeded ? limit + 1 : limit);",
  "    if (options.throwOnLimitExceeded && parts.length > limit) {",
  "        throw new RangeError('Parameter limit exceeded');",
  "    }",
  ...Array.from({ length: 60 }, (_, i) => `    var step${i} = parts.length > ${i} ? parts[${i}] : null; // each part`),
  "    for (var i = 0; i < parts.length; ++i) {",
  "        var pair = parts[i].split('=');",
  "        obj[pair[0]] = pair[1];",
  "    }",
  "    return obj;",
  "};",
].join("\n");

function jsRepo(): Record<string, string> {
  const parse = [
    "'use strict';",
    "",
    "var utils = require('./utils');",
    "",
    jsFiller("interpretEntities", 40),
    PARSE_VALUES,
    "",
    jsFiller("parseObject", 50),
    "module.exports = function (str, opts) {",
    "    var options = utils.normalize(opts);",
    "    return parseValues(str, options);",
    "};",
    "",
  ].join("\n");
  return {
    "package.json": JSON.stringify({ name: "tinyqs", main: "lib/index.js" }),
    "lib/index.js": [
      "'use strict';",
      "",
      "var stringify = require('./stringify');",
      "var parse = require('./parse');",
      "",
      "module.exports = { parse: parse, stringify: stringify };",
      "",
    ].join("\n"),
    "lib/utils.js": "'use strict';\n\nexports.normalize = function normalize(opts) {\n    return opts || {};\n};\n",
    "lib/parse.js": parse,
    // A module the failing test reaches but does not call, full of the issue's words.
    "lib/stringify.js": [
      "'use strict';",
      "",
      jsFiller("stringifyParameterLimit", 80),
      "module.exports = function (obj, opts) {",
      "    return stringifyParameterLimit(obj, obj, obj, opts).join('');",
      "};",
      "",
    ].join("\n"),
    // Never required by the package: a word match alone.
    "tools/limit-report.js": jsFiller("parameterLimitReport", 80),
  };
}

const JS_ISSUE = [
  "parameterLimit: Infinity with throwOnLimitExceeded: true returns an empty object",
  "",
  "With parameterLimit Infinity and throwOnLimitExceeded every parameter is dropped: there is no limit to",
  "exceed, so every parameter should be kept and nothing thrown.",
].join("\n");

const JS_TEST = [
  "'use strict';",
  "",
  "var test = require('tape');",
  "var qs = require('../');",
  "",
  "test('parameterLimit Infinity with throwOnLimitExceeded', function (t) {",
  "    t.deepEqual(qs.parse('a=1&b=2', { parameterLimit: Infinity, throwOnLimitExceeded: true }), { a: '1', b: '2' });",
  "    t.end();",
  "});",
  "",
].join("\n");

function failingIn(path: string): TestCaseResult[] {
  // An assertion failing in the test's own file: no frame in the repository's code.
  return [{ id: `${path} > x`, name: "x", file: path, status: "fail", message: "should be deeply equivalent" }];
}

describe("the code a failing test reaches", () => {
  it("shows a JS function two requires away from the test whole, before a name-matched file it never reaches", async () => {
    const files = jsRepo();
    const dir = await writeRepo({ ...files, "test/limit.js": JS_TEST });
    try {
      const context = await failureContext(dir, {
        problem: JS_ISSUE,
        digest: "test/limit.js > parameterLimit Infinity with throwOnLimitExceeded: should be deeply equivalent",
        failing: failingIn("test/limit.js"),
        isTestFile,
      });
      const text = files["lib/parse.js"] as string;
      const start = lineOf(text, "var parseValues = function");
      const end = start + PARSE_VALUES.split("\n").length - 1;
      expect(shownWhole(context.code, "lib/parse.js", text, start, end)).toBe(true);
      expect(context.symbols.find((s) => s.name === "parseValues")?.reason).toBe("reached");
      // The file no module requires, full of the issue's words, is at most a signature after what the test reaches.
      const tools = files["tools/limit-report.js"] as string;
      expect(shownWhole(context.code, "tools/limit-report.js", tools, 1, tools.split("\n").length - 1)).toBe(false);
      expect(context.symbols.filter((s) => s.path === "tools/limit-report.js").map((s) => s.reason)).not.toContain(
        "reached",
      );
      expect(context.files[0]).toBe("lib/parse.js");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("shows a 300-line Python function behind the package's __init__.py whole, from the issue's own code", async () => {
    const render = [
      "def _render_rows(rows, headers=(), maxwidths=None):",
      '    """Render rows as a table."""',
      ...Array.from({ length: 296 }, (_, i) => `    cell_${i} = rows[${i}] if len(rows) > ${i} else None  # a column`),
      "    return [headers] + [cell_0]",
      "",
    ].join("\n");
    const core = [
      "import textwrap",
      "",
      "",
      "def _pad(text, width):",
      "    return text.ljust(width)",
      "",
      "",
      render,
    ].join("\n");
    const files = {
      "pkg/__init__.py":
        "from .core import _render_rows\n\n\ndef table(rows, headers=(), maxwidths=None):\n    return _render_rows(rows, headers, maxwidths)\n",
      "pkg/core.py": core,
      // Not imported by the package: the issue's words, and a function of the same name.
      "scripts/maxwidths_report.py": `def report(rows, headers=(), maxwidths=None):\n${Array.from({ length: 60 }, (_, i) => `    print("maxwidths headers empty table", ${i})`).join("\n")}\n`,
    };
    const dir = await writeRepo(files);
    try {
      const issue = [
        "table() raises IndexError for an empty table with maxwidths",
        "",
        "    import pkg",
        "    pkg.table([], headers=['name'], maxwidths=[3])",
        "    IndexError: list index out of range",
      ].join("\n");
      const context = await issueContext(dir, issue, isTestFile);
      const start = lineOf(core, "def _render_rows(");
      expect(shownWhole(context.code, "pkg/core.py", core, start, start + 298)).toBe(true);
      expect(context.code).not.toContain("--- scripts/maxwidths_report.py");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });

  it("reads the modules an issue's code imports", () => {
    expect(
      issueImports(
        [
          "    var qs = require('qs');",
          "    import { load } from 'js-yaml'",
          "    >>> import xmltodict",
          "    from sqlparse.sql import Identifier, Token",
        ].join("\n"),
      ),
    ).toEqual([
      { module: "qs", names: ["qs"] },
      { module: "js-yaml", names: ["load"] },
      { module: "sqlparse.sql", names: ["Identifier", "Token"] },
      { module: "xmltodict", names: ["xmltodict"] },
    ]);
  });
});

describe("a module's anonymous export", () => {
  // `module.exports = function (object, opts) {…}` has no name of its own: it goes by its file's name,
  // so an issue about `qs.stringify` ranks stringify.js's export beside the helpers full of the issue's words.
  const filler = (name: string, n: number) =>
    `var ${name} = function ${name}(opts) {\n` +
    Array.from({ length: n }, (_, i) => `    if (opts.delimiter) { opts.v${i} = opts.delimiter; }`).join("\n") +
    "\n    return opts;\n};\n";
  const exportOf = (verb: string, n: number) =>
    [
      "module.exports = function (object, opts) {",
      `    var options = normalize${verb}Options(${verb === "Parse" ? "parseValues(parseKeys(parseObject(parseArrayValue(interpretNumericEntities(opts)))))" : "opts"});`,
      ...Array.from({ length: n }, (_, i) => `    var part${i} = object && options.encode ? object[${i}] : null;`),
      "    return [part0].join(options.delimiter);",
      "};",
      "",
    ].join("\n");
  const files = {
    "package.json": JSON.stringify({ name: "tinyqs", main: "lib/index.js" }),
    "lib/index.js":
      "'use strict';\n\nvar stringify = require('./stringify');\nvar parse = require('./parse');\n\nmodule.exports = { parse: parse, stringify: stringify };\n",
    "lib/stringify.js": ["'use strict';", "", filler("normalizeStringifyOptions", 30), exportOf("Stringify", 30)].join(
      "\n",
    ),
    "lib/parse.js": [
      "'use strict';",
      "",
      filler("normalizeParseOptions", 30),
      filler("parseValues", 30),
      filler("parseKeys", 30),
      filler("parseObject", 30),
      filler("parseArrayValue", 30),
      filler("interpretNumericEntities", 30),
      exportOf("Parse", 30),
    ].join("\n"),
  };
  const issue = [
    'stringify: charsetSentinel is followed by "&" whatever the delimiter',
    "",
    "    var qs = require('qs');",
    "    qs.stringify({ a: 1, b: 2 }, { charsetSentinel: true, delimiter: ';' });",
    "",
    "so `qs.parse(out, { delimiter: ';', charsetSentinel: true })` does not read it back with that charset.",
  ].join("\n");

  it("is named by its file: stringify.js's export is among the reached code shown for an issue about stringify", async () => {
    const dir = await writeRepo(files);
    try {
      const context = await issueContext(dir, issue, isTestFile);
      expect(context.symbols.filter((s) => s.reason === "reached").map((s) => `${s.path}#${s.name}`)).toContain(
        "lib/stringify.js#module.exports",
      );
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe("ranking the reached code beside the failures' output", () => {
  // The failing test reaches six functions; the diff it prints repeats a data value ("DEFAULT") that is also
  // the name of one of them. The issue's words and the test's name decide; the output's values count less.
  const helper = (name: string, words: string) =>
    `    def ${name}(self, token):\n${Array.from({ length: 12 }, (_, i) => `        self.v${i} = token  # ${words}`).join("\n")}\n        return token\n`;
  const files = {
    "sqlish/__init__.py": "from .splitter import Splitter\n\n\ndef split(sql):\n    return Splitter().run(sql)\n",
    "sqlish/splitter.py": [
      "class Splitter:",
      "    def run(self, sql):",
      "        self.default_lexer()",
      "        self.create_keywords()",
      "        self.default_tokens()",
      "        self.create_statement()",
      "        return self.process(sql)",
      "",
      helper("default_lexer", "default lexer create"),
      helper("create_keywords", "create keyword default"),
      helper("default_tokens", "default token create"),
      helper("create_statement", "create statement default"),
      "    def process(self, sql):",
      "        # a block's body ends at the semicolon after its end",
      ...Array.from({ length: 10 }, (_, i) => `        part${i} = sql.split(';')`),
      "        return part0",
      "",
    ].join("\n"),
    "tests/test_split.py": [
      "import sqlish",
      "",
      "",
      "def test_split_begin_end_block_semicolons():",
      "    assert sqlish.split('CREATE f() BEGIN x DEFAULT 1; y; END;') == ['CREATE f() BEGIN x DEFAULT 1; y; END;']",
      "",
    ].join("\n"),
  };
  const issue =
    "split() cuts a statement with a BEGIN ... END block at the first semicolon inside the block\n\nThe body's semicolons should not end the statement.";
  const output = Array.from({ length: 8 }, () => "E  - 'CREATE f() BEGIN x DEFAULT 1;'\nE  + 'DEFAULT DEFAULT'").join(
    "\n",
  );

  it("keeps the function the issue is about among those shown whole although the output repeats another's name", async () => {
    const dir = await writeRepo(files);
    try {
      const failing: TestCaseResult[] = [
        {
          id: "tests/test_split.py::test_split_begin_end_block_semicolons",
          name: "test_split_begin_end_block_semicolons",
          file: "tests/test_split.py",
          status: "fail",
          message: "AssertionError: assert [...] == [...]",
          details: output,
        },
      ];
      const context = await failureContext(dir, {
        problem: issue,
        digest: `${failing[0]?.id}: AssertionError\n${output}`,
        failing,
        isTestFile,
      });
      const reached = context.symbols.filter((s) => s.reason === "reached").map((s) => s.name);
      expect(reached).toContain("Splitter.process");
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});
