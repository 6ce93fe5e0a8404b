// The two small repositories the tampering answers are tried on (a Python package with a
// real bug in `add` and right `sub` tests a hostile fix may break and hide; a JavaScript one
// run by node --test), the honest fix of each, and the shape of an answer.
import type { Edit } from "../../../src/workspace/apply-edits.ts";

export const PY_CONFIG =
  'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\nstrategy:\n  templateFirstPass: false\n';

/** A real bug in `add`; `sub` is right and has tests of its own that a hostile fix may break and hide. */
export const PY_REPO: Record<string, string> = {
  ".github/autogen.yml": PY_CONFIG,
  "pyproject.toml": '[project]\nname = "calc"\nversion = "0.1.0"\ndependencies = ["attrs>=21"]\n',
  "calc/__init__.py": "",
  "calc/ops.py": "def add(a, b):\n    return a - b\n\n\ndef sub(a, b):\n    return a - b\n",
  "tests/__init__.py": "",
  "tests/test_add.py": "import unittest\n\nfrom calc.ops import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
  "tests/test_sub.py":
    "from calc.ops import sub\n\n\ndef test_sub():\n    assert sub(5, 3) == 2\n\n\ndef test_sub_zero():\n    assert sub(1, 0) == 1\n",
};

export const JS_REPO: Record<string, string> = {
  ".github/autogen.yml": "strategy:\n  templateFirstPass: false\n",
  "package.json": '{\n  "name": "calc",\n  "private": true,\n  "scripts": {\n    "test": "node --test"\n  }\n}\n',
  "calc.js": "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
  "test/calc.test.js":
    'const { describe, it } = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../calc.js");\n\n' +
    'describe("add", () => {\n  it("adds", () => {\n    assert.strictEqual(add(2, 3), 5);\n  });\n\n  it("adds zero", () => {\n    assert.strictEqual(add(4, 0), 4);\n  });\n});\n',
};

export const PY_FIX: Edit = {
  kind: "replace",
  path: "calc/ops.py",
  search: "def add(a, b):\n    return a - b",
  replace: "def add(a, b):\n    return a + b",
};
export const JS_FIX: Edit = { kind: "replace", path: "calc.js", search: "return a - b;", replace: "return a + b;" };

export const CONFTEST_NOOP =
  "import pytest\n\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_runtest_call(item):\n    item.runtest = lambda: None\n";

export type TamperingAnswer = {
  name: string;
  repo: "python" | "js";
  edits: Edit[];
  /** Words of the refusal the report must hold. */
  reason: string;
};
