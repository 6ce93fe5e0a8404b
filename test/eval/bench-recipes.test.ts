// The recipe loader of bench:wrongfix and bench:upstream, on a real git repository made here:
// the task it builds (buggy code, the fix's tests hidden or visible, the reference fix, the
// changed function's definition and fault lines) and its errors on bad recipes.
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { buildRecipeTasks, RecipeError } from "../../scripts/bench-recipes/build-recipe-tasks.ts";

let root: string;
let buggy: string;
let fix: string;

const git = (cwd: string, ...args: string[]) =>
  execFileSync("git", ["-c", "user.email=t@t", "-c", "user.name=t", ...args], { cwd, encoding: "utf8" }).trim();

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), "bench-recipes-"));
  const work = join(root, "work");
  await mkdir(join(work, "tests"), { recursive: true });
  await writeFile(join(work, "lib.py"), "import os\n\n\ndef clamp(x, top):\n    return x if x < top else top - 1\n");
  await writeFile(
    join(work, "tests", "test_lib.py"),
    "from lib import clamp\n\n\ndef test_low():\n    assert clamp(1, 5) == 1\n",
  );
  git(root, "init", "-q", "work");
  git(work, "add", ".");
  git(work, "commit", "-qm", "buggy");
  buggy = git(work, "rev-parse", "HEAD");
  await writeFile(join(work, "lib.py"), "import os\n\n\ndef clamp(x, top):\n    return x if x < top else top\n");
  await writeFile(
    join(work, "tests", "test_lib.py"),
    "from lib import clamp\n\n\ndef test_low():\n    assert clamp(1, 5) == 1\n\n\ndef test_top():\n    assert clamp(9, 5) == 5\n",
  );
  git(work, "commit", "-qam", "Fix clamp at the top (fixes #1)");
  fix = git(work, "rev-parse", "HEAD");
  await mkdir(join(root, "mirrors", "acme+lib"), { recursive: true });
  git(root, "clone", "-q", "--bare", "work", join("mirrors", "acme+lib", "repo"));
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

async function recipe(name: string, body: Record<string, unknown>, issue = "clamp(9, 5) returns 4, expected 5\n") {
  const dir = join(root, "recipes", name);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, "recipe.json"), JSON.stringify(body));
  if (issue) await writeFile(join(dir, "issue.md"), issue);
}

const upstreamRecipe = () => ({
  upstream: "acme/lib",
  issue: "https://example.invalid/acme/lib/issues/1",
  buggy,
  files: ["lib.py", "tests"],
  testsFrom: { commit: fix, files: ["tests/test_lib.py"], fixFiles: ["lib.py"] },
  fixTests: "hidden",
  changed: [{ file: "lib.py", symbol: "clamp" }],
});

const build = () => buildRecipeTasks(join(root, "recipes"), join(root, "mirrors"), (n) => join(root, "out", n));

describe("buildRecipeTasks", () => {
  it("builds an issue-only task: buggy code and its own tests, the fix's tests hidden, the fix as reference", async () => {
    await recipe("clamp-top", upstreamRecipe());
    const [task] = await build();
    const out = join(root, "out", "clamp-top");
    expect(await readFile(join(out, "repo", "lib.py"), "utf8")).toContain("top - 1");
    expect(await readFile(join(out, "repo", "tests", "test_lib.py"), "utf8")).not.toContain("test_top");
    expect(await readFile(join(out, "hidden", "tests", "test_lib.py"), "utf8")).toContain("def test_top");
    expect(await readFile(join(out, "reference", "lib.py"), "utf8")).not.toContain("top - 1");
    expect(await readFile(join(out, "issue.md"), "utf8")).toBe("clamp(9, 5) returns 4, expected 5\n");
    expect(task?.changed).toEqual([
      {
        file: "lib.py",
        symbol: "clamp",
        definition: "def clamp(x, top):",
        faultLines: ["return x if x < top else top - 1"],
      },
    ]);
  });

  it("keeps the fix's tests in the repository when they are the visible red tests (bench:wrongfix)", async () => {
    await recipe("clamp-visible", {
      ...upstreamRecipe(),
      fixTests: "visible",
      changed: [],
      wrongFix: "top - 1 -> top + 0",
    });
    await build();
    const out = join(root, "out", "clamp-visible");
    expect(await readFile(join(out, "repo", "tests", "test_lib.py"), "utf8")).toContain("def test_top");
    expect(existsSync(join(out, "hidden", "tests"))).toBe(false);
  });

  it("marks a visible test red for a reason outside the bug as skipped, with its reason, and leaves the hidden tests alone", async () => {
    await writeFile(
      join(root, "work", "tests", "test_lib.py"),
      "import pytest\n" + (await readFile(join(root, "work", "tests", "test_lib.py"), "utf8")),
    );
    git(join(root, "work"), "commit", "-qam", "import pytest");
    git(join(root, "mirrors", "acme+lib", "repo"), "fetch", "-q", join(root, "work"), "HEAD:refs/heads/pytest");
    const withImport = git(join(root, "work"), "rev-parse", "HEAD");
    await recipe("clamp-skip", {
      ...upstreamRecipe(),
      buggy: withImport,
      skipVisible: [{ test: "tests/test_lib.py::test_low", reason: "reads a cp1251 data file the harness mangles" }],
    });
    await build();
    const out = join(root, "out", "clamp-skip");
    expect(await readFile(join(out, "repo", "tests", "test_lib.py"), "utf8")).toContain(
      '@pytest.mark.skip(reason="bench: reads a cp1251 data file the harness mangles")\ndef test_low():',
    );
    expect(await readFile(join(out, "hidden", "tests", "test_lib.py"), "utf8")).not.toContain("mark.skip");
  });

  it("refuses to skip a visible test it cannot mark", async () => {
    const skip = (test: string) => ({
      ...upstreamRecipe(),
      skipVisible: [{ test, reason: "red here for a reason outside the bug" }],
    });
    await recipe("no-pytest", skip("tests/test_lib.py::test_low"));
    await expect(build()).rejects.toThrow(/skipVisible: tests\/test_lib\.py does not import pytest/);
    await rm(join(root, "recipes", "no-pytest"), { recursive: true });
    await recipe("no-file", skip("tests/test_other.py::test_low"));
    await expect(build()).rejects.toThrow(/skipVisible: tests\/test_other\.py is not in the task's repository/);
  });

  it("says which field of a recipe is wrong", async () => {
    await recipe("bad", { ...upstreamRecipe(), buggy: "main" });
    await expect(build()).rejects.toThrow(RecipeError);
    await expect(build()).rejects.toThrow(/bad\/recipe\.json: buggy: /);
  });

  it("says how to get a repository it has no copy of", async () => {
    await recipe("elsewhere", { ...upstreamRecipe(), upstream: "acme/other" });
    await expect(build()).rejects.toThrow(/no git copy of acme\/other at .*: fetch github:acme\/other/);
  });

  it("refuses a changed function the buggy file does not define", async () => {
    await recipe("no-symbol", { ...upstreamRecipe(), changed: [{ file: "lib.py", symbol: "clip" }] });
    await expect(build()).rejects.toThrow(/lib\.py at [0-9a-f]{12} defines no clip/);
  });

  it("wants the issue text beside the recipe", async () => {
    await recipe("no-issue", upstreamRecipe(), "");
    await expect(build()).rejects.toThrow(/no-issue: no issue\.md/);
  });
});
