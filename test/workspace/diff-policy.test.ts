// The diff policy on real diffs: produced by git from real edits in a real repository.
import { mkdir, rm, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { evaluateDiffPolicy, type PolicyConfig } from "../../src/workspace/diff-policy.ts";
import { git } from "../support/git-client.ts";
import { pathPattern } from "../../src/workspace/glob.ts";
import { parseDiff } from "../../src/workspace/parse-diff.ts";
import { gitRepo } from "../support/git-repo.ts";

const defaults = repoConfigSchema.parse({});
const CONFIG: PolicyConfig = { ...defaults.paths, ...defaults.diff };

const BASE = {
  "src/calc.py": "def add(a, b):\n    return a - b\n",
  "tests/test_calc.py":
    "from src.calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n\n\ndef test_add_negative():\n    assert add(-1, -1) == -2\n",
  "tests/__snapshots__/calc.snap": "exports[`add`] = `5`;\n",
  "package-lock.json": "{}\n",
  ".github/workflows/ci.yml": "on: push\n",
};

/** The real `git diff` of a change applied to the base repository. */
async function gitDiff(change: Record<string, string | null>, renames: Array<[string, string]> = []): Promise<string> {
  const repo = await gitRepo(BASE);
  for (const [from, to] of renames) await git(repo).raw(["mv", "--", from, to]);
  for (const [path, text] of Object.entries(change)) {
    if (text === null) await rm(join(repo, path));
    else {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
  }
  await git(repo).raw(["add", "-A"]);
  return git(repo).raw(["diff", "--cached", "-M", "HEAD"]);
}

const verdict = async (
  change: Record<string, string | null>,
  renames: Array<[string, string]> = [],
  asked: string[] = [],
) => evaluateDiffPolicy(await gitDiff(change, renames), CONFIG, { isTestFile, testsAskedToChange: asked });

describe("diff policy", () => {
  it("accepts a fix to the code alone", async () => {
    expect(await verdict({ "src/calc.py": "def add(a, b):\n    return a + b\n" })).toEqual({
      ok: true,
      violations: [],
      tampering: [],
    });
  });

  it("refuses protected paths: workflows and lockfiles", async () => {
    const v = await verdict({
      ".github/workflows/ci.yml": "on: [push, pull_request]\n",
      "package-lock.json": '{"x":1}\n',
    });
    expect(v.ok).toBe(false);
    expect(v.violations.map((x) => x.rule)).toEqual(["protected-path", "protected-path"]);
    expect(v.violations[0]?.detail).toBe(
      ".github/workflows/ci.yml is protected (paths.protected); the maintainer must allow it in .github/autogen.yml",
    );
  });

  it("keeps a change inside the allowed paths and the diff budget", async () => {
    const outside = evaluateDiffPolicy(
      await gitDiff({ "src/calc.py": "def add(a, b):\n    return a + b\n" }),
      { ...CONFIG, allowed: ["lib/**"] },
      { isTestFile },
    );
    expect(outside.violations).toEqual([
      { rule: "outside-allowed-paths", detail: "src/calc.py is outside paths.allowed" },
    ]);
    const big = await gitDiff(Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`src/m${i}.py`, "X = 1\n"])));
    const budget = evaluateDiffPolicy(big, { ...CONFIG, maxLines: 5 }, { isTestFile });
    expect(budget.violations).toEqual([
      { rule: "diff-budget", detail: "12 files changed; the limit is 10 (diff.maxFiles)" },
      { rule: "diff-budget", detail: "12 lines changed; the limit is 5 (diff.maxLines)" },
    ]);
  });

  it("flags a deleted test file and a renamed one", async () => {
    expect((await verdict({ "tests/test_calc.py": null })).tampering).toEqual([
      { kind: "test-deleted", file: "tests/test_calc.py", detail: "a test file was deleted" },
    ]);
    const renamed = await verdict({}, [["tests/test_calc.py", "tests/old_calc.py"]]);
    expect(renamed.tampering).toEqual([
      { kind: "test-renamed", file: "tests/test_calc.py", detail: "renamed to tests/old_calc.py" },
    ]);
  });

  it("flags added skips, xfails and .only", async () => {
    const py = await verdict({
      "tests/test_calc.py": BASE["tests/test_calc.py"]
        .replace("def test_add():", "@pytest.mark.skip(reason='later')\ndef test_add():")
        .replace("def test_add_negative", "@pytest.mark.xfail\ndef test_add_negative"),
    });
    expect(py.tampering.map((t) => [t.kind, t.line])).toEqual([
      ["skip-added", 4],
      ["skip-added", 9],
    ]);
    const js = evaluateDiffPolicy(
      "--- a/test/a.test.js\n+++ b/test/a.test.js\n@@ -1,2 +1,2 @@\n-it('adds', () => {\n+it.only('adds', () => {\n   expect(add(1, 1)).toBe(2);\n",
      CONFIG,
      { isTestFile },
    );
    expect(js.tampering.map((t) => t.kind)).toEqual(["only-added"]);
  });

  it("flags a loosened assertion: removed, or its expected value replaced", async () => {
    const removed = await verdict({
      "tests/test_calc.py": BASE["tests/test_calc.py"].replace("    assert add(-1, -1) == -2\n", "    pass\n"),
    });
    expect(removed.tampering).toEqual([
      { kind: "assertion-removed", file: "tests/test_calc.py", line: 9, detail: "assert add(-1, -1) == -2" },
    ]);
    const replaced = await verdict({ "tests/test_calc.py": BASE["tests/test_calc.py"].replace("== 5", "== -1") });
    expect(replaced.tampering).toEqual([
      {
        kind: "expected-changed",
        file: "tests/test_calc.py",
        line: 5,
        detail: "assert add(2, 3) == 5 → assert add(2, 3) == -1",
      },
    ]);
  });

  it("flags a rewritten snapshot", async () => {
    expect(
      (await verdict({ "tests/__snapshots__/calc.snap": "exports[`add`] = `-1`;\n" })).tampering.map((t) => t.kind),
    ).toEqual(["snapshot-rewritten"]);
  });

  it("allows changes to tests the task asked to change, and new test files", async () => {
    expect(
      (
        await verdict(
          { "tests/test_calc.py": BASE["tests/test_calc.py"].replace("== 5", "== 6") },
          [],
          ["tests/test_calc.py"],
        )
      ).tampering,
    ).toEqual([]);
    expect((await verdict({ "tests/test_repro.py": "def test_repro():\n    assert True\n" })).ok).toBe(true);
  });
});

describe("parseDiff and globs", () => {
  it("reads content lines that look like headers as content", () => {
    const files = parseDiff("--- a/x.md\n+++ b/x.md\n@@ -1,2 +1,2 @@\n--- old heading\n+++ new heading\n same\n");
    expect(files).toHaveLength(1);
    expect(files[0]?.removed).toEqual([{ line: 1, text: "-- old heading" }]);
    expect(files[0]?.added).toEqual([{ line: 1, text: "++ new heading" }]);
  });

  it("matches gitignore-style patterns", () => {
    expect(pathPattern(".github/workflows/**").test(".github/workflows/ci.yml")).toBe(true);
    expect(pathPattern("package-lock.json").test("web/package-lock.json")).toBe(true);
    expect(pathPattern("src/*.py").test("src/a/b.py")).toBe(false);
    expect(pathPattern("**/*.snap").test("a/b/c.snap")).toBe(true);
  });
});
