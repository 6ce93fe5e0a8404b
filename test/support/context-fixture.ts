// A repository shaped like the ones the model failed on (tabulate, xmltodict): a licence
// header, a 2,000+-line module with the bug deep inside a class, a Sphinx docs/conf.py full
// of the issue's words, a parametrized test and a test helper whose assert hides the values.
export const BUGGY_LINE_TEXT = "                width = abs(width) or 1";

function filler(i: number): string {
  const kind = ["number", "string", "date", "boolean", "currency", "percent"][i % 6] as string;
  return [
    `def _render_${kind}_cell_${i}(value, fmt="", missing=""):`,
    `    """Render one ${kind} cell (variant ${i}) for a plain-text table."""`,
    "    if value is None:",
    "        return missing",
    `    text = format(value, fmt) if fmt else str(value)`,
    `    if len(text) > ${40 + (i % 17)}:`,
    `        text = text[:${37 + (i % 17)}] + "..."`,
    "    return text",
    "",
    "",
  ].join("\n");
}

/** The module: a licence header, imports, 190 filler functions, then class Table with the faulty method past line 1,900, and more after it. */
export function tableModule(): string {
  const head = [
    "# Copyright (c) 2011-2026 The Grid Authors.",
    "#",
    "# Permission is hereby granted, free of charge, to any person obtaining a copy of this",
    "# software and associated documentation files, to deal in the software without",
    "# restriction, including without limitation the rights to use, copy, modify, merge.",
    '"""Pretty-print tabular data as plain text."""',
    "import math",
    "import re",
    "import textwrap",
    "from collections import namedtuple",
    "from functools import reduce",
    "",
    'Line = namedtuple("Line", ["begin", "hline", "sep", "end"])',
    "",
    "",
  ].join("\n");
  const before = Array.from({ length: 190 }, (_, i) => filler(i)).join("");
  const cls = [
    "class Table:",
    '    """A table of rows with per-column widths."""',
    "",
    '    separator = "  "',
    "",
    "    def __init__(self, rows, headers=()):",
    "        self.rows = [list(r) for r in rows]",
    "        self.headers = list(headers)",
    "",
    "    def column_count(self):",
    "        return max((len(r) for r in self.rows), default=0)",
    "",
    "    def wrap_text_to_colwidths(self, colwidths):",
    '        """Wrap every cell to its column\'s width; a width of None leaves the column as is."""',
    "        result = []",
    "        for row in self.rows:",
    "            cells = []",
    "            for cell, width in zip(row, colwidths):",
    "                if width is None:",
    "                    cells.append(str(cell))",
    "                    continue",
    BUGGY_LINE_TEXT,
    "                wrapped = textwrap.wrap(str(cell), width)",
    '                cells.append("\\n".join(wrapped))',
    "            result.append(cells)",
    "        return result",
    "",
    "    def render(self, colwidths=None):",
    "        widths = colwidths or [None] * self.column_count()",
    "        rows = self.wrap_text_to_colwidths(widths)",
    '        return "\\n".join(self.separator.join(r) for r in rows)',
    "",
    "",
  ].join("\n");
  const after = Array.from({ length: 40 }, (_, i) => filler(190 + i)).join("");
  const tail = [
    "def tabulate(rows, headers=(), maxcolwidths=None):",
    '    """Format rows as a plain-text table."""',
    "    return Table(rows, headers).render(maxcolwidths)",
    "",
  ].join("\n");
  return `${head}${before}${cls}${after}${tail}`;
}

export const CONF_PY = [
  "# Sphinx configuration: wrap long table columns in the HTML theme.",
  'project = "grid"',
  'extensions = ["sphinx.ext.autodoc"]',
  'html_theme_options = {"wrap_text": True, "table_column_width": 80, "maxcolwidths": None}',
  "def setup(app):",
  '    app.add_css_file("wrap-table-columns.css")',
  "",
].join("\n");

export const TEST_HELPER = [
  "def assert_equal(expected, result):",
  '    print("Expected:\\n%s\\n" % expected)',
  "    assert expected == result",
  "",
].join("\n");

export const PARAM_TEST = [
  "import pytest",
  "from common import assert_equal",
  "from grid.table import tabulate",
  "",
  "",
  '@pytest.mark.parametrize("width,expected", [(5, "alpha\\nbeta"), (0, "alpha beta"), (-1, "alpha beta")], ids=["five", "zero", "negative"])',
  "def test_wrap_width(width, expected):",
  '    assert_equal(expected, tabulate([["alpha beta"]], maxcolwidths=[width]))',
  "",
].join("\n");

export const ISSUE =
  "A maxcolwidths entry of 0 or a negative number wraps the column one character per line instead of leaving it unwrapped, like None does: the text is wrapped to the column widths regardless.";

export function gridRepo(): Record<string, string> {
  return {
    "grid/__init__.py": "",
    "grid/table.py": tableModule(),
    "docs/conf.py": CONF_PY,
    "setup.py": 'from setuptools import setup\nsetup(name="grid", description="wrap table columns to widths")\n',
    "test/common.py": TEST_HELPER,
    "test/test_wrap.py": PARAM_TEST,
    "pytest.ini": "[pytest]\npythonpath = test .\n",
  };
}
