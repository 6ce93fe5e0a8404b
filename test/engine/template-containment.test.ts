// The template strategy against repositories that try to make it edit files outside the
// worktree (issue 12): a symlinked source, a coverage trace forged by a conftest, and V8
// coverage forged by a node test. Real pytest and node runs in the sandbox.
import { mkdir, mkdtemp, readFile, stat, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { runTemplate } from "../support/python-task.ts";

const VICTIM = "def check(a, b):\n    return a < b\n";

/** base/a/repo with the given files, base/outside/victim.<ext>, and repo/linkdir → base/outside. */
async function layout(files: Record<string, string>, victimName: string): Promise<{ root: string; victim: string }> {
  const base = await mkdtemp(join(tmpdir(), "autogen-contain-"));
  const root = join(base, "a", "repo");
  await mkdir(join(base, "outside"), { recursive: true });
  const victim = join(base, "outside", victimName);
  await writeFile(victim, VICTIM);
  for (const [name, text] of Object.entries(files)) {
    await mkdir(join(root, name, ".."), { recursive: true });
    await writeFile(join(root, name), text);
  }
  await symlink(join(base, "outside"), join(root, "linkdir"));
  return { root, victim };
}

/** The victim's bytes and modification time: a write that restores the content still moves the time. */
async function fingerprint(path: string): Promise<{ text: string; mtimeMs: number }> {
  return { text: await readFile(path, "utf8"), mtimeMs: (await stat(path)).mtimeMs };
}

describe("template strategy: containment (Python)", () => {
  it("does not edit a source file that is a symbolic link to a file outside, and does not report it fixed", async () => {
    const base = await mkdtemp(join(tmpdir(), "autogen-contain-"));
    const root = join(base, "repo");
    await mkdir(join(base, "outside"));
    await mkdir(root);
    const outside = join(base, "outside", "lib.py");
    await writeFile(outside, "def passed(score, pass_mark):\n    return score > pass_mark\n");
    await symlink(outside, join(root, "lib.py"));
    await writeFile(
      join(root, "test_lib.py"),
      "from lib import passed\n\ndef test_above():\n    assert passed(70, 50)\n\ndef test_at_mark():\n    assert passed(50, 50)\n",
    );
    const before = await fingerprint(outside);
    // The outside file is readable in the sandbox (read-only), so the tests import it and the
    // coverage run names it: what stops the edit is the safe-path gate, not the sandbox hiding it.
    const outcome = await runTemplate(root, 300, 2, [join(base, "outside")]);
    expect(await fingerprint(outside)).toEqual(before);
    expect(outcome.status).toBe("not-fixed");
    expect(outcome.diff).toBe("");
    expect(outcome.attempts).toEqual([]);
    expect(outcome.message).toContain(
      'ignored 1 file(s) the coverage run named that are outside the worktree, symbolic links or not regular files ("lib.py")',
    );
  });

  it("drops trace entries a conftest forged (a `..` path and a path through a linked directory) and fixes only the real bug", async () => {
    const forge = [
      "import json, os",
      "import pytest",
      "",
      "@pytest.hookimpl(trylast=True)",
      "def pytest_sessionfinish(session, exitstatus):",
      '    out = os.environ.get("AUTOGEN_TRACE_OUT")',
      "    if not out or not os.path.exists(out):",
      "        return",
      "    with open(out) as handle:",
      "        trace = json.load(handle)",
      "    for entry in trace.values():",
      '        if entry.get("outcome") != "passed":',
      '            lines = entry.setdefault("lines", {})',
      '            lines["../../outside/victim.py"] = [1, 2]',
      '            lines["linkdir/victim.py"] = [1, 2]',
      '    with open(out, "w") as handle:',
      "        json.dump(trace, handle)",
      "",
    ].join("\n");
    const { root, victim } = await layout(
      {
        "conftest.py": forge,
        "lib.py": "def total_price(price, tax):\n    return price - tax\n",
        "test_lib.py":
          "from lib import total_price\n\ndef test_total():\n    assert total_price(100, 20) == 120\n\ndef test_no_tax():\n    assert total_price(5, 0) == 5\n",
      },
      "victim.py",
    );
    const before = await fingerprint(victim);
    const outcome = await runTemplate(root, 300, 2);
    expect(await fingerprint(victim)).toEqual(before);
    expect(outcome.attempts.filter((a) => a.file !== "lib.py")).toEqual([]);
    expect(outcome.plan.localisation.every((l) => l.file === "lib.py")).toBe(true);
    expect(outcome.status).toBe("fixed");
    expect(outcome.changedFiles).toEqual(["lib.py"]);
    expect(await readFile(join(root, "lib.py"), "utf8")).toContain("return price + tax");
    expect(outcome.message).toContain(
      'ignored 2 file(s) the coverage run named that are outside the worktree, symbolic links or not regular files ("../../outside/victim.py", "linkdir/victim.py")',
    );
  });
});

describe("template strategy: containment (JavaScript, V8 coverage)", () => {
  it("drops coverage a test forged for a file through a linked directory and outside the worktree", async () => {
    // The failing test writes its own coverage file into NODE_V8_COVERAGE, claiming it ran the victim.
    const test = [
      'import assert from "node:assert/strict";',
      'import { writeFileSync } from "node:fs";',
      'import { join } from "node:path";',
      'import { test } from "node:test";',
      'import { total } from "../src/cart.js";',
      "",
      "function forge() {",
      "  const dir = process.env.NODE_V8_COVERAGE;",
      "  if (!dir) return;",
      "  const functions = [{ ranges: [{ startOffset: 0, endOffset: 1000, count: 1 }] }];",
      "  const urls = [`file://${process.cwd()}/linkdir/victim.js`, `file://${process.cwd()}/../../outside/victim.js`];",
      '  writeFileSync(join(dir, "coverage-forged.json"), JSON.stringify({ result: urls.map((url) => ({ url, functions })) }));',
      "}",
      "",
      'test("total adds every price", () => {',
      "  forge();",
      "  assert.equal(total([1, 2, 3]), 6);",
      "});",
      "",
      'test("total of nothing is zero", () => {',
      "  assert.equal(total([]), 0);",
      "});",
      "",
    ].join("\n");
    const { root, victim } = await layout(
      {
        "package.json": JSON.stringify({
          name: "cart",
          private: true,
          type: "module",
          scripts: { test: "node --test" },
        }),
        "src/cart.js":
          "export function total(prices) {\n  let sum = 0;\n  for (let i = 0; i < prices.length - 1; i++) {\n    sum += prices[i];\n  }\n  return sum;\n}\n",
        "test/cart.test.js": test,
      },
      "victim.js",
    );
    const before = await fingerprint(victim);
    const sandbox = { timeoutMs: 60_000 };
    const outcome = await templateStrategy.run({
      workspace: root,
      visible: { kind: "all" },
      verifier: localVerifier(detectRunner(root), sandbox),
      sandbox,
      runnerName: "node-test",
      isTestFile,
      budget: { candidates: 300, minutes: 5 },
      parallelism: 2,
    });
    expect(await fingerprint(victim)).toEqual(before);
    expect(outcome.attempts.filter((a) => a.file !== "src/cart.js")).toEqual([]);
    expect(outcome.plan.localisation.every((l) => l.file === "src/cart.js")).toBe(true);
    expect(outcome.status).toBe("fixed");
    expect(outcome.changedFiles).toEqual(["src/cart.js"]);
    expect(outcome.message).toMatch(
      /ignored 2 file\(s\) the coverage run named .*\("\/.*\/a\/repo\/linkdir\/victim\.js", "\/.*\/outside\/victim\.js"\)$/,
    );
  });
});
