// `autogen fix` on real git repositories with real test runs.
import { existsSync, mkdtempSync } from "node:fs";
import { mkdtemp, readFile, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { runCli } from "../support/run-cli.ts";

const CONFIG = 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n';
const BUGGY = {
  ".github/autogen.yml": CONFIG,
  "shop/__init__.py": "",
  "shop/cart.py":
    "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n\n\ndef count(prices):\n    return len(prices)\n",
  "tests/test_cart.py":
    "from shop.cart import count, total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_count():\n    assert count([1, 2]) == 2\n",
};
const JS_BUGGY = {
  "package.json": JSON.stringify({ name: "cart", private: true, type: "module", scripts: { test: "node --test" } }),
  "src/cart.js":
    "export function total(prices) {\n  let sum = 0;\n  for (let i = 0; i < prices.length - 1; i++) {\n    sum += prices[i];\n  }\n  return sum;\n}\n\nexport function count(prices) {\n  return prices.length;\n}\n",
  "test/cart.test.js":
    'import assert from "node:assert/strict";\nimport { test } from "node:test";\nimport { count, total } from "../src/cart.js";\n\ntest("total adds every price", () => {\n  assert.equal(total([1, 2, 3]), 6);\n});\n\ntest("total of nothing is zero", () => {\n  assert.equal(total([]), 0);\n});\n\ntest("count counts", () => {\n  assert.equal(count([1, 2]), 2);\n});\n',
};
const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
};

describe("autogen fix", () => {
  it("fixes a Python bug on a new branch, leaving the user's branch and files untouched", async () => {
    const repo = await gitRepo(BUGGY);
    const reportPath = join(await mkdtemp(join(tmpdir(), "autogen-report-")), "report.md");
    const { code, stdout, stderr } = await runCli(
      ["fix", repo, "--issue", "Discount is added instead of subtracted", "--report", reportPath],
      { env: ENV },
    );
    expect(stderr).toBe("");
    expect(code).toBe(0);
    expect(stdout).toContain("note: no LLM endpoint configured");
    expect(stdout).toContain("tests: pytest");
    // Model-free: the tests' word only, said so.
    expect(stdout).toMatch(/passes the tests; not reviewed: `\+` → `-` at shop\/cart\.py:3/);
    const g = git(repo);
    expect((await g.branchLocal()).all).toEqual(["autogen/discount-is-added-instead-of-subtracted", "main"]);
    expect((await g.revparse(["--abbrev-ref", "HEAD"])).trim()).toBe("main");
    expect(await readFile(join(repo, "shop/cart.py"), "utf8")).toContain("subtotal + discount");
    expect((await g.status()).files).toEqual([]);
    const fixed = await g.show(["autogen/discount-is-added-instead-of-subtracted:shop/cart.py"]);
    expect(fixed).toContain("return subtotal - discount");
    const message = await g.raw([
      "log",
      "-1",
      "--format=%an%n%s%n%b",
      "autogen/discount-is-added-instead-of-subtracted",
    ]);
    expect(message).toMatch(/^autogen-bot\n\+ → - in shop\/cart\.py\n/);
    expect(message).toContain(
      "Requested: Discount is added instead of subtracted\n\nWhat changed (shop/cart.py):\n- + → - at shop/cart.py:3",
    );
    expect(message).toContain(
      "Checked by autogen-bot: passes the tests; not reviewed (visible tests after the change: 1 passed, 0 failed).",
    );
    expect((await g.raw(["worktree", "list"])).trim().split("\n")).toHaveLength(1);
    const report = await readFile(reportPath, "utf8");
    expect(report).toContain("## autogen: Discount is added instead of subtracted");
    expect(report).toContain("| `tests/test_cart.py::test_total_applies_discount` | ❌ fail | ✅ pass |");
    expect(report).toContain("Regression gate (full suite): before 1 passed, 1 failed; after 2 passed, 0 failed.");
    expect(report).toContain("-    return subtotal + discount\n+    return subtotal - discount");
    expect(report).toContain(
      "#### Diff policy and test-tampering check\n\n- ✅ Every test that ran before the change ran after it (2 of 2)",
    );
    expect(report).toContain("- No protected path touched");
    expect(report).toContain(
      "**Passes the tests; not reviewed**: `+` → `-` at shop/cart.py:3 makes every visible test pass.",
    );
  });

  it("commits nothing when the fix breaks the diff policy", async () => {
    const repo = await gitRepo({ ...BUGGY, ".github/autogen.yml": `${CONFIG}paths:\n  protected: ["shop/**"]\n` });
    const { code, stdout } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(1);
    expect(stdout).toContain(
      "not fixed (policy): the change passes the tests but breaks the diff policy: shop/cart.py is protected (paths.protected)",
    );
    expect((await git(repo).branchLocal()).all).toEqual(["main"]);
  });

  it("fixes a JavaScript bug (node --test, V8 coverage) on a new branch", async () => {
    const repo = await gitRepo(JS_BUGGY);
    const { code, stdout } = await runCli(["fix", repo, "--json"], { env: ENV });
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout) as {
      branch: string;
      plan: { fix: { file: string; line: number }; localisation: Array<{ file: string; line: number }> };
      changedFiles: string[];
    };
    expect(outcome.branch).toBe("autogen/fix-total-adds-every-price");
    expect(outcome.changedFiles).toEqual(["src/cart.js"]);
    expect(outcome.plan.fix).toMatchObject({ file: "src/cart.js", line: 3 });
    expect(outcome.plan.localisation.every((l) => l.file === "src/cart.js")).toBe(true);
    const fixed = await git(repo).show([`${outcome.branch}:src/cart.js`]);
    expect(fixed).not.toContain("i < prices.length - 1;");
    expect(await readFile(join(repo, "src/cart.js"), "utf8")).toContain("i < prices.length - 1;");
  });

  it("exits 1 on a JavaScript bug no template fixes", async () => {
    const repo = await gitRepo({
      ...JS_BUGGY,
      "src/cart.js":
        "export function total(prices) {\n  return 'none';\n}\n\nexport function count(prices) {\n  return prices.length;\n}\n",
    });
    const { code, stdout } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(1);
    expect(stdout).toMatch(/not fixed \(exhausted\)/);
    expect((await git(repo).branchLocal()).all).toEqual(["main"]);
  });

  it("prints the Outcome as JSON with --json", async () => {
    const repo = await gitRepo(BUGGY);
    const { code, stdout } = await runCli(["fix", repo, "--json"], { env: ENV });
    expect(code).toBe(0);
    const outcome = JSON.parse(stdout) as {
      status: string;
      strategy: string;
      branch: string;
      cost: { llmCalls: number };
      changedFiles: string[];
    };
    expect(outcome).toMatchObject({
      status: "fixed",
      strategy: "template",
      branch: "autogen/fix-test-total-applies-discount",
      changedFiles: ["shop/cart.py"],
    });
    expect(outcome.cost.llmCalls).toBe(0);
  });

  it("exits 1 and creates no branch when no fix is found", async () => {
    const repo = await gitRepo({
      ".github/autogen.yml": CONFIG,
      "greet.py": "def greet(name):\n    return 'hello'\n",
      "test_greet.py": "from greet import greet\n\ndef test_greet():\n    assert greet('ann') == 'hello ann'\n",
    });
    const { code, stdout } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(1);
    expect(stdout).toMatch(/not fixed \(exhausted\): none of the \d+ template edits/);
    expect((await git(repo).branchLocal()).all).toEqual(["main"]);
  });

  it("refuses a dirty tree unless told otherwise", async () => {
    const repo = await gitRepo(BUGGY);
    await writeFile(join(repo, "shop/cart.py"), "# my work in progress\n");
    const refused = await runCli(["fix", repo], { env: ENV });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/has uncommitted changes; commit or stash them first, or pass --allow-dirty/);
    const allowed = await runCli(["fix", repo, "--allow-dirty"], { env: ENV });
    expect(allowed.code).toBe(0);
    expect(await readFile(join(repo, "shop/cart.py"), "utf8")).toBe("# my work in progress\n");
  });

  it("refuses a directory that is not a git repository", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-nogit-"));
    const { code, stderr } = await runCli(["fix", dir], { env: ENV });
    expect(code).toBe(2);
    expect(stderr).toContain("is not a git repository (run `git init` and commit your code first)");
  });

  it("says what it looked for when there are no tests", async () => {
    const repo = await gitRepo({ "README.md": "docs only\n" });
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(2);
    expect(stderr).toMatch(/^autogen fix: no test command found in .*: looked for pytest/);
  });

  it("says there is nothing to fix when every test passes", async () => {
    const repo = await gitRepo({
      ".github/autogen.yml": CONFIG,
      "ok.py": "def one():\n    return 1\n",
      "test_ok.py": "from ok import one\n\ndef test_one():\n    assert one() == 1\n",
    });
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(1);
    expect(stderr).toContain("nothing to fix: all 1 tests pass. Name the tests that show the bug with --test.");
  });

  it("reports an invalid repository config and does no work", async () => {
    const repo = await gitRepo({ ...BUGGY, ".github/autogen.yml": "tset:\n  command: pytest\n" });
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(2);
    expect(stderr).toContain('- unknown key "tset" (did you mean "test"?)');
    expect(existsSync(join(repo, ".git", "autogen"))).toBe(false);
  });

  it("reports a configured test command that does not exist", async () => {
    const repo = await gitRepo({ ...BUGGY, ".github/autogen.yml": "test:\n  command: no-such-runner --all\n" });
    const { code, stderr } = await runCli(["fix", repo], { env: ENV });
    expect(code).toBe(2);
    expect(stderr).toMatch(/the test command could not start: command not found: no-such-runner/);
  });

  it("rejects an unknown strategy and a missing path as bad input", async () => {
    const repo = await gitRepo(BUGGY);
    expect((await runCli(["fix", repo, "--strategy", "magic"], { env: ENV })).stderr).toContain(
      'unknown strategy "magic"',
    );
    expect((await runCli(["fix"], { env: ENV })).code).toBe(2);
  });
});
