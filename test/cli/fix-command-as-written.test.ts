// `autogen fix` with the repository's own test command as written: an environment
// assignment the tests need to import the code (a src/ layout) is part of every run.
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { git } from "../support/git-client.ts";
import { gitRepo } from "../support/git-repo.ts";
import { runCli } from "../support/run-cli.ts";

const SRC_LAYOUT = {
  ".github/autogen.yml": 'test:\n  env:\n    PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1"\n',
  "src/shop/__init__.py": "",
  "src/shop/cart.py": "def total(prices, discount):\n    subtotal = sum(prices)\n    return subtotal + discount\n",
  "tests/test_cart.py":
    "from shop.cart import total\n\n\ndef test_total_applies_discount():\n    assert total([10, 20], 5) == 25\n\n\ndef test_no_discount():\n    assert total([1, 2], 0) == 3\n",
};
const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  XDG_DATA_HOME: mkdtempSync(join(tmpdir(), "autogen-data-")),
};

describe("autogen fix runs the test command as written", () => {
  it("`env PYTHONPATH=src python3 -m pytest -q tests`: the code imports in every run, the bug is found and fixed", async () => {
    const repo = await gitRepo(SRC_LAYOUT);
    const { code, stdout } = await runCli(
      ["fix", repo, "--test-cmd", "env PYTHONPATH=src python3 -m pytest -q tests"],
      { env: ENV },
    );
    expect(stdout).not.toContain("No module named");
    expect(stdout).toMatch(/passes the tests; not reviewed: `\+` → `-` at src\/shop\/cart\.py:3/);
    expect(code).toBe(0);
    expect(await git(repo).raw(["log", "--all", "-p"])).toContain("+    return subtotal - discount");
  }, 300_000);

  it("without the assignment the same repository cannot import its code and nothing is fixed: the assignment is what made it work", async () => {
    const repo = await gitRepo(SRC_LAYOUT);
    const { code, stdout } = await runCli(["fix", repo, "--test-cmd", "python3 -m pytest -q tests"], { env: ENV });
    expect(code).not.toBe(0);
    expect(stdout).toContain("not fixed");
    expect(await git(repo).raw(["log", "--all", "-p"])).not.toContain("subtotal - discount");
  }, 300_000);
});
