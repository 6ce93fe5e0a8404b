// Context by evidence on fixture modules parsed by the real tree-sitter grammars: calls link
// symbols only when they resolve (module, import, class), never by a bare method name; the
// module-level names a focal function uses are shown; a symbol that only shares a word with
// the problem is a signature; no localize call when a stack frame names the code; a
// unittest method is shown under its class line with its own indentation.
import { describe, expect, it } from "vitest";
import { buildContext } from "../../../src/engine/context/build-context.ts";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { testSource } from "../../../src/engine/lpw/test-source.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { writeRepo } from "../../support/python-task.ts";

useHttpMock();

const filler = (prefix: string, n: number) =>
  Array.from({ length: n }, (_, i) => `def ${prefix}_${i}(x):\n    """Pad."""\n    return x + ${i}\n`).join("\n");

function repo(): Record<string, string> {
  return {
    "pkg/__init__.py": "",
    "pkg/iters.py": [
      "import math",
      "",
      "_LIMITS = {'low': 1,",
      "           'high': 10}",
      "_UNUSED = 3",
      "",
      "",
      "def _clamp(value):",
      "    return max(_LIMITS['low'], min(_LIMITS['high'], value))",
      "",
      "",
      filler("pad_a", 40),
      "",
      "def backoff(start, stop, factor=2.0):",
      "    return list(backoff_iter(start, stop, factor))",
      "",
      "",
      "def backoff_iter(start, stop, factor=2.0):",
      "    count = 1 + math.ceil(math.log(stop / start, factor))",
      "    cache = {}",
      "    cache.get(count)",
      "    for i in range(_clamp(count)):",
      "        yield start * factor ** i",
      "",
      "",
      filler("pad_b", 40),
      "",
      "class Holder:",
      "    def __init__(self, size=24):",
      "        self.size = size",
      "",
      "    def get(self, key):",
      "        return self.size",
      "",
      "    def pop(self, key):",
      "        return count(key)",
      "",
      "",
      "def count(values):",
      '    """Count the backoff factor values in a long docstring."""',
      ...Array.from({ length: 30 }, (_, i) => `    total_${i} = len(values) + ${i}`),
      "    return total_0",
      "",
    ].join("\n"),
    "pkg/caches.py": [
      "from pkg.iters import backoff",
      "from pkg import iters",
      "",
      "",
      "class Cache:",
      "    def __init__(self):",
      "        self.items = {}",
      "",
      "    def get(self, key):",
      "        return self.items.get(key)",
      "",
      "    def pop(self, key):",
      "        return self.items.pop(key)",
      "",
      "    def __repr__(self):",
      "        return 'Cache()'",
      "",
      "",
      "def retry_delays():",
      "    return backoff(1, 10)",
      "",
      "",
      "def retry_iter():",
      "    return iters.backoff_iter(1, 10)",
      "",
      "",
      "def unrelated():",
      "    return Cache().get(1)",
      "",
      filler("pad_c", 30),
    ].join("\n"),
    "tests/test_iters.py": [
      "import unittest",
      "from pkg.iters import backoff",
      "",
      "",
      "class BackoffTests(unittest.TestCase):",
      "    def test_constant(self):",
      "        self.assertEqual(backoff(1, 1, factor=1.0), [1.0])",
      "",
    ].join("\n"),
  };
}

describe("context by evidence", () => {
  it("lists only resolved callers and callees, the module-level names used, and weak hits as signatures", async () => {
    const files = repo();
    const dir = await writeRepo(files);
    const lines = (files["pkg/iters.py"] as string).split("\n");
    const frameLine = lines.indexOf("    count = 1 + math.ceil(math.log(stop / start, factor))") + 1;
    const { requests } = scriptAnswers([]);
    const context = await buildContext(dir, {
      query: "backoff_iter raises ZeroDivisionError with a constant factor; count the values",
      mentioned: ["pkg/iters.py"],
      frames: [{ file: "pkg/iters.py", line: frameLine }],
      isTestFile,
      maxFiles: 2,
      llm: testLlm(),
    });
    // A stack frame named the code: no localize call.
    expect(requests).toHaveLength(0);
    expect(context.symbols[0]).toMatchObject({ name: "backoff_iter", reason: "stack-frame" });
    const related = context.code.slice(
      context.code.indexOf("Callers and callees"),
      context.code.indexOf("Other source files"),
    );
    expect(related).toMatch(/caller of backoff_iter pkg\/iters\.py:\d+: def backoff\(/);
    expect(related).toMatch(/caller of backoff_iter pkg\/caches\.py:\d+: def retry_iter\(\):/);
    expect(related).not.toContain("__init__");
    expect(related).not.toContain("def get(");
    expect(related).not.toContain("def pop(");
    expect(related).not.toContain("__repr__");
    expect(related).not.toContain("unrelated");
    // The same module's helper backoff_iter uses, whole; a module-level name it does not use, left out.
    expect(context.code).toMatch(/\d+\|def _clamp\(value\):\n\d+\| {4}return max\(/);
    expect(context.code).not.toContain("_UNUSED = 3");
    // `count` shares words with the problem: its signature only, not its 30-line body.
    expect(context.code).toMatch(/\d+\|def count\(values\):/);
    expect(context.code).not.toContain("total_5");
  });

  it("shows a module-level assignment the focal function reads", async () => {
    const files = repo();
    files["pkg/iters.py"] = (files["pkg/iters.py"] as string).replace(
      "    for i in range(_clamp(count)):",
      "    for i in range(min(count, _LIMITS['high'])):",
    );
    const dir = await writeRepo(files);
    const context = await buildContext(dir, { query: "crash", mentioned: [], named: ["backoff_iter"], isTestFile });
    expect(context.code).toContain("3|_LIMITS = {'low': 1,\n4|           'high': 10}");
  });

  it("names the real caller of a function a module imports by name", async () => {
    const dir = await writeRepo(repo());
    const context = await buildContext(dir, { query: "crash", mentioned: [], named: ["backoff"], isTestFile });
    expect(context.code).toMatch(/caller of backoff pkg\/caches\.py:\d+: def retry_delays\(\):/);
    expect(context.code).toMatch(/callee of backoff pkg\/iters\.py:\d+: def backoff_iter\(/);
    expect(context.code).not.toMatch(/caller of \w+ pkg\/caches\.py:\d+: def retry_iter/);
  });

  it("shows a unittest method under its class line, keeping its indentation", async () => {
    const dir = await writeRepo(repo());
    const source = await testSource(dir, "tests/test_iters.py::BackoffTests::test_constant");
    expect(source).toBe(
      [
        "# tests/test_iters.py",
        "class BackoffTests(unittest.TestCase):",
        "    def test_constant(self):",
        "        self.assertEqual(backoff(1, 1, factor=1.0), [1.0])",
      ].join("\n"),
    );
  });
});
