// Load and collection failures told apart from test failures, on real runs of pytest and
// node --test (Node 24) in small repositories.
import { describe, expect, it } from "vitest";
import { brokenRunReason } from "../../src/verify/load-failure.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { PYTEST_ENV, writeRepo } from "../support/python-task.ts";

async function baseline(files: Record<string, string>) {
  const dir = await writeRepo(files);
  const report = await localVerifier(detectRunner(dir), { timeoutMs: 30_000, env: PYTEST_ENV }).run(dir, {
    kind: "all",
  });
  return { dir, report, reason: brokenRunReason(report, dir) };
}

const pkg = (test: string) => JSON.stringify({ name: "x", private: true, type: "module", scripts: { test } });
const SRC = { "src/add.js": "export const add = (a, b) => a - b;\n" };
const nodeTest = (imports: string) =>
  `import assert from "node:assert/strict";\nimport { test } from "node:test";\n${imports}\ntest("adds", () => {\n  assert.equal(add(2, 3), 5);\n});\n`;

describe("brokenRunReason on node --test", () => {
  it("a folder given to node --test is loaded as a module: the command is broken", async () => {
    const { report, reason } = await baseline({
      "package.json": pkg("node --test test/"),
      ...SRC,
      "test/add.test.js": nodeTest('import { add } from "../src/add.js";'),
    });
    expect(report.tests.map((t) => t.id)).toEqual(["test > test"]);
    expect(reason).toBe(
      "test > test: test is a folder, loaded as a module (the command names a folder where node --test wants files or globs)",
    );
  });

  it("a package that is not installed: broken (the environment's fault, not the code's)", async () => {
    const { reason } = await baseline({
      "package.json": pkg("node --test"),
      ...SRC,
      "test/add.test.js": nodeTest('import { add } from "../src/add.js";\nimport pad from "left-pad-not-installed";'),
    });
    expect(reason).toBe("test/add.test.js > test > test/add.test.js: Cannot find module 'left-pad-not-installed'");
  });

  it("a source module the test imports is missing: the code's fault, so the run is usable", async () => {
    const { report, reason } = await baseline({
      "package.json": pkg("node --test"),
      ...SRC,
      "test/add.test.js": nodeTest('import { add } from "../src/gone.js";'),
    });
    expect(report.tests).toHaveLength(1);
    expect(reason).toBeUndefined();
  });

  it("a plain failing assertion is a test failure", async () => {
    const { report, reason } = await baseline({
      "package.json": pkg("node --test"),
      ...SRC,
      "test/add.test.js": nodeTest('import { add } from "../src/add.js";'),
    });
    expect(report.tests.map((t) => [t.id, t.status])).toEqual([["test/add.test.js > test > adds", "fail"]]);
    expect(reason).toBeUndefined();
  });
});

describe("brokenRunReason on pytest", () => {
  const LIB = { "shop/__init__.py": "", "shop/cart.py": "def total(p):\n    return sum(p) + 1\n" };

  it("a test module importing a package that is not installed: broken", async () => {
    const { reason } = await baseline({
      ...LIB,
      "tests/test_cart.py":
        "import requests_not_installed\nfrom shop.cart import total\n\n\ndef test_total():\n    assert total([1]) == 1\n",
    });
    expect(reason).toBe(
      "tests/test_cart.py::tests.test_cart: ModuleNotFoundError: No module named 'requests_not_installed'",
    );
  });

  it("a syntax error in a test file: broken", async () => {
    const { reason } = await baseline({
      ...LIB,
      "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_total(:\n    assert total([1]) == 1\n",
    });
    expect(reason).toMatch(/^tests\/test_cart\.py::tests\.test_cart: SyntaxError: .*\(tests\/test_cart\.py\)$/);
  });

  it("a module of the repository that is gone, or a syntax error in the code: the code's fault", async () => {
    const gone = await baseline({
      ...LIB,
      "tests/test_cart.py": "from shop.gone import total\n\n\ndef test_total():\n    assert total([1]) == 1\n",
    });
    expect(gone.report.tests).toHaveLength(1);
    expect(gone.reason).toBeUndefined();
    const syntax = await baseline({
      ...LIB,
      "shop/cart.py": "def total(p:\n    return 1\n",
      "tests/test_cart.py": "from shop.cart import total\n\n\ndef test_total():\n    assert total([1]) == 1\n",
    });
    expect(syntax.reason).toBeUndefined();
  });

  it("no test collected: broken", async () => {
    const { reason } = await baseline({ ...LIB, "tests/test_cart.py": "from shop.cart import total\n" });
    expect(reason).toMatch(/^it ran no test \(exit 5\)/);
  });
});
