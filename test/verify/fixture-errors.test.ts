// A fixture that fails is a failing test with its message, never lost: unittest's setUpClass
// and setUpModule (each test they kept from running errors with the fixture's message), a
// tearDownClass error under the fixture's own name, and pytest's fixture and collection
// errors. Real unittest and pytest runs in the sandbox, on a project written for the test.
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

const FILES: Record<string, string> = {
  "tests/__init__.py": "",
  "tests/test_fixtures.py": [
    "import unittest",
    "",
    "class DbTest(unittest.TestCase):",
    "    @classmethod",
    "    def setUpClass(cls):",
    '        raise RuntimeError("no database at localhost:5432")',
    "",
    "    def test_read(self):",
    "        pass",
    "",
    "    def test_write(self):",
    "        pass",
    "",
    "class PlainTest(unittest.TestCase):",
    "    def test_ok(self):",
    "        pass",
    "",
    "class TornTest(unittest.TestCase):",
    "    def test_ok(self):",
    "        pass",
    "",
    "    @classmethod",
    "    def tearDownClass(cls):",
    '        raise ValueError("cleanup failed")',
    "",
  ].join("\n"),
  "tests/test_module_setup.py": [
    "import unittest",
    "",
    "def setUpModule():",
    '    raise OSError("fixture data missing")',
    "",
    "class AnyTest(unittest.TestCase):",
    "    def test_a(self):",
    "        pass",
    "",
  ].join("\n"),
  "pytests/test_server.py": [
    "import pytest",
    "",
    "@pytest.fixture",
    "def server():",
    '    raise ConnectionError("port 8080 in use")',
    "",
    "def test_uses_server(server):",
    "    assert server",
    "",
    "def test_plain():",
    "    assert True",
    "",
  ].join("\n"),
  "broken/test_import.py": "import not_a_module_anywhere\n\ndef test_never():\n    pass\n",
};
const SANDBOX = { timeoutMs: 120_000, env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" } };
let dir: string;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "autogen-fixture-errors-"));
  for (const [name, text] of Object.entries(FILES)) {
    await mkdir(join(dir, name, ".."), { recursive: true });
    await writeFile(join(dir, name), text);
  }
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

const UNITTEST = "python3 -m unittest discover -s tests -t .";

describe("fixture errors", () => {
  it("unittest: the tests a failed setUpClass or setUpModule kept from running error with its message; a tearDownClass error is kept under its own name", async () => {
    const report = await localVerifier(detectRunner(dir, UNITTEST), SANDBOX).run(dir, { kind: "all" });
    expect(report.source).toBe("junit");
    const byId = Object.fromEntries(report.tests.map((t) => [t.id, [t.status, t.message]]));
    expect(byId).toEqual({
      "tests.test_fixtures.DbTest.test_read": [
        "error",
        "setUpClass failed: RuntimeError: no database at localhost:5432",
      ],
      "tests.test_fixtures.DbTest.test_write": [
        "error",
        "setUpClass failed: RuntimeError: no database at localhost:5432",
      ],
      "tests.test_fixtures.PlainTest.test_ok": ["pass", undefined],
      "tests.test_fixtures.TornTest.test_ok": ["pass", undefined],
      "tests.test_module_setup.AnyTest.test_a": ["error", "setUpModule failed: OSError: fixture data missing"],
      "tearDownClass (tests.test_fixtures.TornTest)": ["error", "ValueError: cleanup failed"],
    });
    expect(report.tests.find((t) => t.id.endsWith("DbTest.test_read"))?.details).toContain(
      'raise RuntimeError("no database at localhost:5432")',
    );
  }, 180_000);

  it("unittest: one selected test of a class whose setUpClass fails errors with the fixture's message", async () => {
    const report = await localVerifier(detectRunner(dir, UNITTEST), SANDBOX).run(dir, {
      kind: "tests",
      ids: ["tests.test_fixtures.DbTest.test_write"],
    });
    expect(report.tests.map((t) => [t.id, t.status, t.message])).toEqual([
      [
        "tests.test_fixtures.DbTest.test_write",
        "error",
        "setUpClass failed: RuntimeError: no database at localhost:5432",
      ],
    ]);
  }, 180_000);

  it("pytest: a fixture's error is the test's error with its message; a module that fails to import is an error named by its file", async () => {
    const fixture = await localVerifier(detectRunner(dir, "python3 -m pytest pytests"), SANDBOX).run(dir, {
      kind: "all",
    });
    expect(fixture.tests.map((t) => [t.id, t.status])).toEqual([
      ["pytests/test_server.py::test_uses_server", "error"],
      ["pytests/test_server.py::test_plain", "pass"],
    ]);
    expect(fixture.tests[0]?.message).toContain("ConnectionError: port 8080 in use");
    const collection = await localVerifier(detectRunner(dir, "python3 -m pytest broken"), SANDBOX).run(dir, {
      kind: "all",
    });
    expect(collection.tests).toHaveLength(1);
    expect(collection.tests[0]).toMatchObject({ status: "error" });
    expect(collection.tests[0]?.id).toContain("broken/test_import.py");
    expect(`${collection.tests[0]?.message ?? ""}\n${collection.tests[0]?.details ?? ""}`).toContain(
      "No module named 'not_a_module_anywhere'",
    );
  }, 180_000);
});
