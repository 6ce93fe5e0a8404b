// Path patterns with .gitignore semantics (plus braces), as paths.allowed and
// paths.protected use them; and the end-to-end refusal of a protected directory.
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoConfigSchema } from "../../src/config/repo-config-schema.ts";
import { checkDiffPolicy } from "../../src/engine/check-diff-policy.ts";
import type { Outcome } from "../../src/engine/task.ts";
import { git } from "../support/git-client.ts";
import { pathPattern, matchesAny, patternProblem } from "../../src/workspace/glob.ts";
import { gitRepo } from "../support/git-repo.ts";

// pattern, path, expected
const TABLE: Array<[string, string, boolean]> = [
  // A name without a slash: at any depth, and everything under a directory of that name.
  ["vendor", "vendor/x.js", true],
  ["vendor", "lib/vendor/deep/x.js", true],
  ["vendor", "vendor", true],
  ["vendor", "vendors/x.js", false],
  ["vendor", "src/myvendor/x.js", false],
  ["package-lock.json", "package-lock.json", true],
  ["package-lock.json", "web/package-lock.json", true],
  ["Jenkinsfile", "ci/Jenkinsfile", true],
  // A trailing slash: directories only, so what is under them.
  ["docs/", "docs/guide.md", true],
  ["docs/", "docs/api/index.md", true],
  ["docs/", "site/docs/guide.md", true],
  ["docs/", "docs", false],
  ["docs/", "docs.md", false],
  ["src/gen/", "src/gen/a.ts", true],
  ["src/gen/", "lib/src/gen/a.ts", false],
  // A leading or middle slash anchors at the root.
  ["/build", "build/out.js", true],
  ["/build", "pkg/build/out.js", false],
  ["/README.md", "README.md", true],
  ["/README.md", "docs/README.md", false],
  ["docs/api", "docs/api/x.md", true],
  ["docs/api", "site/docs/api/x.md", false],
  ["src/*.py", "src/a.py", true],
  ["src/*.py", "src/a/b.py", false],
  // `*`, `?` and classes stay within one name; `*` matches dot files as in git.
  ["*.lock", "Cargo.lock", true],
  ["*.lock", "sub/dir/yarn.lock", true],
  ["*.lock", "yarn.locked", false],
  ["*.py", ".hidden.py", true],
  ["test_?.py", "tests/test_a.py", true],
  ["test_?.py", "tests/test_ab.py", false],
  ["file[0-9].txt", "file7.txt", true],
  ["file[0-9].txt", "fileA.txt", false],
  ["file[!0-9].txt", "fileA.txt", true],
  ["file[!0-9].txt", "file7.txt", false],
  ["a[/]b", "a/b", false],
  ["a?b", "a/b", false],
  ["a*b", "a/x/b", false],
  // `**` forms.
  ["**", "any/path/at/all.txt", true],
  ["**/*.snap", "a/b/c.snap", true],
  ["**/*.snap", "c.snap", true],
  ["**/fixtures", "test/unit/fixtures/x.json", true],
  [".github/workflows/**", ".github/workflows/ci.yml", true],
  [".github/workflows/**", ".github/workflows/sub/ci.yml", true],
  [".github/workflows/**", ".github/workflows", false],
  [".github/workflows/**", ".github/CODEOWNERS", false],
  ["a/**/b", "a/b", true],
  ["a/**/b", "a/x/y/b", true],
  ["a/**/b", "a/x/y/b/c.txt", true],
  ["a/**/b", "a/xb", false],
  ["a/**/b", "c/a/x/b", false],
  // Braces, as users expect from globs.
  ["*.{lock,json}", "package.json", true],
  ["*.{lock,json}", "deep/yarn.lock", true],
  ["*.{lock,json}", "Cargo.toml", false],
  ["{docs,examples}/", "examples/demo.py", true],
  ["{docs,examples}/", "src/demo.py", false],
  ["src/{a,b{c,d}}.ts", "src/bd.ts", true],
  ["src/{a,b{c,d}}.ts", "src/b.ts", false],
  ["{single}.txt", "{single}.txt", true],
  // Escapes and literal regular-expression characters.
  ["\\*.txt", "*.txt", true],
  ["\\*.txt", "a.txt", false],
  ["a+b(1).txt", "a+b(1).txt", true],
  ["a.txt", "abtxt", false],
  // Case matters (as on Linux, where git's core.ignorecase is false), and `**/dir/` at any depth.
  ["*.PY", "src/a.py", false],
  ["**/build/", "pkg/build/out.js", true],
  ["**/build/", "pkg/build", false],
  ["docs/**/*.md", "docs/a/b/c.md", true],
  ["docs/**/*.md", "docs/c.md", true],
  ["docs/**/*.md", "src/docs/c.md", false],
];

describe("path patterns (.gitignore semantics)", () => {
  it.each(TABLE)("%s on %s is %s", (pattern, path, expected) => {
    expect(pathPattern(pattern).test(path)).toBe(expected);
    expect(matchesAny(path, [pattern])).toBe(expected);
  });

  it("lets a later negation re-include a path, and a later pattern exclude it again (last match wins)", () => {
    const list = ["docs/", "!docs/README.md", "!*.txt", "docs/legal/"];
    expect(matchesAny("docs/guide.md", list)).toBe(true);
    expect(matchesAny("docs/README.md", list)).toBe(false);
    expect(matchesAny("docs/notes.txt", list)).toBe(false);
    expect(matchesAny("docs/legal/terms.txt", list)).toBe(true);
    expect(matchesAny("src/app.ts", list)).toBe(false);
    expect(matchesAny("a.txt", ["!a.txt"])).toBe(false);
  });

  it("accepts gitignore forms in the config and refuses patterns it cannot use", () => {
    const ok = repoConfigSchema.safeParse({
      paths: { protected: ["docs/", "/build", "!docs/README.md", "*.{lock,json}"] },
    });
    expect(ok.success).toBe(true);
    const outside = repoConfigSchema.safeParse({ paths: { protected: ["../secrets"] } });
    expect(outside.error?.issues[0]?.message).toBe("must be a path pattern inside the repository (no '..')");
    expect(patternProblem("a\\")).toBe('"a\\" ends with a lone backslash');
    expect(patternProblem("{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}")).toMatch(
      /expands to more than 256 alternatives/,
    );
    expect(
      repoConfigSchema.safeParse({ paths: { allowed: ["{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}{a,b}"] } }).success,
    ).toBe(false);
  });
});

describe("paths.protected: [docs/] end to end", () => {
  it("refuses a fix that changes docs/guide.md, through the config and the diff policy on a real git diff", async () => {
    const repo = await gitRepo({
      "src/calc.py": "def add(a, b):\n    return a - b\n",
      "docs/guide.md": "# Guide\n\nadd(2, 3) is 5\n",
    });
    const fix: Record<string, string> = {
      "src/calc.py": "def add(a, b):\n    return a + b\n",
      "docs/guide.md": "# Guide\n\nadd(2, 3) returns 5\n",
    };
    for (const [path, text] of Object.entries(fix)) {
      await mkdir(dirname(join(repo, path)), { recursive: true });
      await writeFile(join(repo, path), text);
    }
    await git(repo).raw(["add", "-A"]);
    const diff = await git(repo).raw(["diff", "--cached", "HEAD"]);
    const config = repoConfigSchema.parse({ paths: { protected: ["docs/"] } });
    const outcome: Outcome = {
      strategy: "template",
      status: "fixed",
      stopReason: "solved",
      message: "fixed",
      plan: { localisation: [] },
      evidence: {},
      diff,
      changedFiles: ["src/calc.py", "docs/guide.md"],
      attempts: [],
      cost: {
        llmCalls: 0,
        cachedCalls: 0,
        promptTokens: 0,
        completionTokens: 0,
        dollars: 0,
        llmSeconds: 0,
        testRuns: 0,
        testSeconds: 0,
        wallSeconds: 0,
        candidatesGenerated: 0,
        candidatesTried: 0,
      },
    };
    checkDiffPolicy(outcome, config);
    expect(outcome).toMatchObject({ status: "not-fixed", stopReason: "policy" });
    expect(outcome.policy?.violations).toEqual([
      {
        rule: "protected-path",
        detail: "docs/guide.md is protected (paths.protected); the maintainer must allow it in .github/autogen.yml",
      },
    ]);
    expect(outcome.message).toBe(
      "the change passes the tests but breaks the diff policy: docs/guide.md is protected (paths.protected); the maintainer must allow it in .github/autogen.yml",
    );
  });
});
