// Test infrastructure in the diff policy, on real git diffs of real edits: protected by
// default, files with test sections compared by those sections (parsed before and after),
// opened by name in the repository's config; test-file edits that switch tests off.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { evaluateDiffPolicy } from "../../src/workspace/diff-policy.ts";
import { fileSides, textBefore } from "../../src/workspace/file-sides.ts";
import { git } from "../support/git-client.ts";
import { parseDiff } from "../../src/workspace/parse-diff.ts";
import { gitRepo } from "../support/git-repo.ts";

const BASE = {
  "calc.py": "def add(a, b):\n    return a - b\n",
  "pyproject.toml":
    '[project]\nname = "calc"\ndependencies = ["attrs>=21"]\n\n[tool.pytest.ini_options]\ntestpaths = ["tests"]\n\n[tool.black]\nline-length = 100\n',
  "setup.cfg": "[metadata]\nname = calc\n\n[tool:pytest]\naddopts = -q\n",
  "package.json":
    '{\n  "name": "calc",\n  "version": "1.0.0",\n  "scripts": { "test": "node --test" },\n  "dependencies": { "left-pad": "1.0.0" }\n}\n',
  "tests/test_calc.py":
    "import pytest\n\nfrom calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_zero():\n    assert add(4, 0) == 4\n",
  "test/calc.test.js":
    'const { describe, it } = require("node:test");\n\ndescribe("add", () => {\n  it("adds", () => {});\n});\n',
};

/** The policy's verdict on a change made in a real repository, judged with the worktree's text (as checkDiffPolicy does). */
async function judge(change: Record<string, string | null>, config: Record<string, unknown> = {}) {
  const repo = await gitRepo(BASE);
  for (const [path, text] of Object.entries(change)) {
    if (text === null) await rm(join(repo, path));
    else {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
  }
  await git(repo).raw(["add", "-A"]);
  const diff = await git(repo).raw(["diff", "--cached", "HEAD"]);
  const parsed = repoConfigSchema.parse(config);
  return evaluateDiffPolicy(
    diff,
    { ...parsed.paths, ...parsed.diff },
    { isTestFile, sides: (file) => fileSides(repo, file) },
  );
}
const infra = (v: Awaited<ReturnType<typeof judge>>) =>
  v.violations.filter((x) => x.rule === "test-infrastructure").map((x) => x.detail);

describe("test infrastructure is protected by default", () => {
  it.each([
    ["conftest.py", "conftest.py is test infrastructure: a pytest conftest"],
    ["tests/unit/conftest.py", "tests/unit/conftest.py is test infrastructure"],
    ["pytest.ini", "pytest.ini is test infrastructure: test runner configuration"],
    ["tox.ini", "tox.ini is test infrastructure"],
    ["sitecustomize.py", "sitecustomize.py is test infrastructure: Python start-up code"],
    ["usercustomize.py", "usercustomize.py is test infrastructure"],
    ["lib/evil.pth", "lib/evil.pth is test infrastructure: a Python path file"],
    ["jest.config.js", "jest.config.js is test infrastructure: JavaScript test runner configuration"],
    ["vitest.config.mts", "vitest.config.mts is test infrastructure"],
    [".mocharc.yml", ".mocharc.yml is test infrastructure"],
    ["karma.conf.js", "karma.conf.js is test infrastructure"],
    ["Makefile", "Makefile is test infrastructure: a Makefile"],
    [".env", ".env is test infrastructure: an environment file"],
    [".github/actions/x/action.yml", ".github/actions/x/action.yml is test infrastructure: GitHub configuration"],
    [".github/CODEOWNERS", ".github/CODEOWNERS is test infrastructure"],
    [".github/dependabot.yml", ".github/dependabot.yml is test infrastructure"],
  ])("%s", async (path, detail) => {
    const verdict = await judge({ [path]: "x = 1\n" });
    expect(verdict.ok).toBe(false);
    expect(infra(verdict)).toEqual([expect.stringContaining(detail)]);
    expect(infra(verdict)[0]).toContain("paths.allowTestInfrastructure");
  });

  it("an ordinary source change, a docs change and a new test file are not test infrastructure", async () => {
    const verdict = await judge({
      "calc.py": "def add(a, b):\n    return a + b\n",
      "docs/github.md": "x\n",
      "tests/test_more.py": "def test_more():\n    assert True\n",
    });
    expect(verdict).toMatchObject({ ok: true, violations: [], tampering: [] });
  });
});

describe("files with test sections are compared by those sections, parsed", () => {
  it("pyproject.toml: a dependency bump or a black setting is allowed; a pytest or coverage setting is not, however written", async () => {
    expect(
      infra(
        await judge({
          "pyproject.toml": BASE["pyproject.toml"].replace("attrs>=21", "attrs>=23").replace("100", "120"),
        }),
      ),
    ).toEqual([]);
    expect(
      infra(
        await judge({
          "pyproject.toml": BASE["pyproject.toml"].replace(
            'testpaths = ["tests"]',
            'testpaths = ["tests"]\naddopts = "--deselect tests/test_calc.py::test_add"',
          ),
        }),
      ),
    ).toEqual([
      expect.stringContaining(
        "pyproject.toml changes its [tool.pytest*], [tool.coverage*], hatch or tox settings (tool.pytest)",
      ),
    ]);
    // The same setting as a dotted key under another table header, and a new coverage table.
    const dotted = BASE["pyproject.toml"].replace(
      '[tool.pytest.ini_options]\ntestpaths = ["tests"]',
      "[tool]\npytest.ini_options.testpaths = ['tests']\npytest.ini_options.addopts = '-k not add'",
    );
    expect(infra(await judge({ "pyproject.toml": dotted }))).toEqual([expect.stringContaining("(tool.pytest)")]);
    expect(
      infra(await judge({ "pyproject.toml": `${BASE["pyproject.toml"]}\n[tool.coverage.run]\nomit = ["*"]\n` })),
    ).toEqual([expect.stringContaining("(tool.coverage)")]);
  });

  it("pyproject.toml that no longer parses counts as a changed test section; a new one with only [project] does not", async () => {
    expect(infra(await judge({ "pyproject.toml": `${BASE["pyproject.toml"]}[[[\n` }))).toEqual([
      expect.stringContaining("the file no longer parses"),
    ]);
    expect(infra(await judge({ "pyproject.toml": null, "sub/pyproject.toml": '[project]\nname = "sub"\n' }))).toEqual([
      expect.stringContaining("pyproject.toml changes"),
    ]);
  });

  it("setup.cfg: [metadata] is allowed, [tool:pytest] is not", async () => {
    expect(infra(await judge({ "setup.cfg": BASE["setup.cfg"].replace("name = calc", "name = calc2") }))).toEqual([]);
    expect(
      infra(await judge({ "setup.cfg": BASE["setup.cfg"].replace("-q", "-q -p no:randomly --deselect x") })),
    ).toEqual([expect.stringContaining("setup.cfg changes its [tool:pytest]")]);
  });

  it("package.json: a dependency or version bump is allowed; scripts, jest, mocha and ava are not", async () => {
    expect(
      infra(
        await judge({
          "package.json": BASE["package.json"]
            .replace("1.0.0", "1.0.1")
            .replace('"left-pad": "1.0.0"', '"left-pad": "1.3.0"'),
        }),
      ),
    ).toEqual([]);
    expect(infra(await judge({ "package.json": BASE["package.json"].replace("node --test", "exit 0") }))).toEqual([
      expect.stringContaining("(scripts)"),
    ]);
    for (const key of ["jest", "mocha", "ava"]) {
      const text = BASE["package.json"].replace('"version"', `"${key}": { "ignore": ["test/"] },\n  "version"`);
      expect(infra(await judge({ "package.json": text }))).toEqual([expect.stringContaining(`(${key})`)]);
    }
  });
});

describe("paths.allowTestInfrastructure opens test infrastructure by name", () => {
  it("opens exactly what it names", async () => {
    const change = { Makefile: "test:\n\tpytest\n", "tests/conftest.py": "x = 1\n" };
    expect(infra(await judge(change, { paths: { allowTestInfrastructure: ["Makefile"] } }))).toEqual([
      expect.stringContaining("tests/conftest.py"),
    ]);
    expect(
      infra(await judge(change, { paths: { allowTestInfrastructure: ["Makefile", "tests/conftest.py"] } })),
    ).toEqual([]);
  });

  it("does not open a path that paths.protected refuses", async () => {
    const verdict = await judge(
      { ".github/workflows/ci.yml": "on: push\n" },
      { paths: { allowTestInfrastructure: [".github/**"] } },
    );
    expect(verdict.violations.map((v) => v.rule)).toEqual(["protected-path"]);
  });
});

describe("test-file edits that switch tests off are refused by content", () => {
  const test = BASE["tests/test_calc.py"];
  it.each([
    [
      "pytestmark",
      test.replace("import pytest\n", 'import pytest\n\npytestmark = pytest.mark.skip(reason="later")\n'),
      "skip-added",
    ],
    [
      "importorskip",
      test.replace("import pytest\n", 'import pytest\n\npytest.importorskip("nothing_here")\n'),
      "skip-added",
    ],
    [
      "raise SkipTest",
      test.replace("def test_add():\n", 'def test_add():\n    raise unittest.SkipTest("x")\n'),
      "skip-added",
    ],
    ["self.skipTest", test.replace("def test_add():\n", 'def test_add():\n    self.skipTest("x")\n'), "skip-added"],
    ["__test__ = False", test.replace("import pytest\n", "import pytest\n\n__test__ = False\n"), "skip-added"],
    ["an early return", test.replace("def test_add():\n", "def test_add():\n    return\n"), "early-return"],
    ["a test renamed away", test.replace("def test_zero():", "def check_zero():"), "test-removed"],
  ])("%s", async (_name, text, kind) => {
    const verdict = await judge({ "tests/test_calc.py": text });
    expect(verdict.tampering.map((t) => t.kind)).toEqual([kind]);
  });

  it.each([
    ["it.skip", 'it.skip("adds"', "skip-added"],
    ["describe.skip", 'describe.skip("add"', "skip-added"],
    ["describe.only", 'describe.only("add"', "only-added"],
    ["it.only", 'it.only("adds"', "only-added"],
    ["xit", 'xit("adds"', "skip-added"],
  ])("%s", async (_name, replacement, kind) => {
    const original = replacement.includes("adds") ? 'it("adds"' : 'describe("add"';
    const verdict = await judge({ "test/calc.test.js": BASE["test/calc.test.js"].replace(original, replacement) });
    expect(verdict.tampering.map((t) => t.kind)).toEqual([kind]);
  });
});

describe("code that changes how other tests run, wherever it is written", () => {
  const hookText = (v: Awaited<ReturnType<typeof judge>>) => infra(v).filter((d) => d.includes("pytest plugin"));

  it("refuses pytest plugin or hook code in any Python file, loaded by a test file's pytest_plugins", async () => {
    const verdict = await judge({
      "calc_checks.py":
        "import pytest\n\n\n@pytest.hookimpl(tryfirst=True)\ndef pytest_runtest_call(item):\n    item.runtest = lambda: None\n",
      "tests/test_calc.py": BASE["tests/test_calc.py"].replace(
        "import pytest\n",
        'import pytest\n\npytest_plugins = ["calc_checks"]\n',
      ),
    });
    expect(hookText(verdict)).toEqual([
      expect.stringContaining("calc_checks.py:4 adds pytest plugin or hook code"),
      expect.stringContaining("tests/test_calc.py:3 adds pytest plugin or hook code"),
    ]);
    expect(verdict.ok).toBe(false);
  });

  it("refuses a new test file that patches pytest itself when it is imported", async () => {
    const verdict = await judge({
      "tests/test_0_setup.py":
        "import _pytest.python\n\n_pytest.python.Function.runtest = lambda self: None\n\n\ndef test_setup():\n    assert True\n",
    });
    expect(hookText(verdict)).toEqual([expect.stringContaining("tests/test_0_setup.py:1 adds pytest plugin")]);
    expect(verdict.tampering.map((t) => [t.kind, t.file, t.line])).toEqual([
      ["patch-at-import", "tests/test_0_setup.py", 3],
    ]);
  });

  it("refuses a test module that replaces the code under test when it is imported", async () => {
    const verdict = await judge({
      "tests/test_calc.py": BASE["tests/test_calc.py"].replace(
        "import pytest\n",
        "import pytest\n\nimport calc\n\ncalc.add = lambda a, b: a + b\nsetattr(calc, 'add', calc.add)\n",
      ),
    });
    expect(verdict.tampering.map((t) => [t.kind, t.line])).toEqual([
      ["patch-at-import", 5],
      ["patch-at-import", 6],
    ]);
  });

  it("refuses a JavaScript test file that ends its process or patches a module at load", async () => {
    const verdict = await judge({
      "test/calc.test.js": BASE["test/calc.test.js"].replace(
        'const { describe, it } = require("node:test");\n',
        'process.exit(0);\nconst { describe, it } = require("node:test");\nrequire("../calc.js").add = (a, b) => a + b;\n',
      ),
    });
    expect(verdict.tampering.map((t) => [t.kind, t.line])).toEqual([
      ["exit-added", 1],
      ["patch-at-import", 3],
    ]);
  });

  it("keeps ordinary new tests, helpers and source code allowed", async () => {
    const verdict = await judge({
      "calc.py": "def add(a, b):\n    total = a + b\n    return total\n",
      "tests/test_more.py":
        "import pytest\n\nfrom calc import add\n\nCASES = [(1, 2, 3)]\n\n\n@pytest.mark.parametrize('a,b,c', CASES)\ndef test_more(a, b, c):\n    result = add(a, b)\n    result.real  # noqa\n    assert result == c\n",
      "test/helpers.js":
        "const x = {};\nx.count = 1;\nmodule.exports = { x };\nmodule.exports.y = 2;\nexports.z = 3;\n",
    });
    expect(verdict).toMatchObject({ ok: true, violations: [], tampering: [] });
  });
});

describe("textBefore", () => {
  it("rebuilds the old text of a file from its new text and the diff", async () => {
    const before = "a\nb\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\n";
    const after = "a\nB\nc\nd\ne\nf\ng\nh\ni\nj\nk\nl\nm\n".replace("f\n", "");
    const repo = await gitRepo({ "f.txt": before });
    await writeFile(join(repo, "f.txt"), after);
    const [file] = parseDiff(await git(repo).raw(["diff", "HEAD"]));
    expect(file && textBefore(after, file)).toBe(before);
    expect(file && fileSides(repo, file)).toEqual({ before, after });
  });
});
