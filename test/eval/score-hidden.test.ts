// Hidden scoring copies the solution files out of a workspace the visible tests ran in: a
// test may have turned one into a link to a host file (or the bot's /proc/self/environ),
// a FIFO or a device. Such a file is absent from the scored code (never copied through the
// link, never blocking); an honest solution file is scored.
import { execFileSync } from "node:child_process";
import { chmodSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import type { EvalTask } from "../../src/eval/humanevalfix-loader.ts";
import { runHiddenTests } from "../../src/eval/score-hidden.ts";

const CANARY = "RTCANARYscorehidden";
const HIDDEN_TEST = [
  "import importlib, os",
  "",
  "HERE = os.path.dirname(os.path.abspath(__file__))",
  "",
  "",
  "def test_honest():",
  "    assert importlib.import_module('honest').VALUE == 2",
  "",
  "",
  "def test_linked_is_absent():",
  "    # Copied through the link, the host file would be here (and its canary readable by this run).",
  "    assert not os.path.exists(os.path.join(HERE, 'linked.py'))",
  "",
  "",
  "def test_fifo_is_absent():",
  "    assert not os.path.exists(os.path.join(HERE, 'fifo.py'))",
  "",
].join("\n");

describe("runHiddenTests: the solution files a test left as links or FIFOs", () => {
  it("copies the honest file, leaves out a link to a host file and a FIFO, and does not block", async () => {
    const base = mkdtempSync(join(tmpdir(), "autogen-hidden-test-"));
    const workspace = join(base, "ws");
    execFileSync("mkdir", [workspace]);
    const secret = join(base, "secret.py");
    writeFileSync(secret, `VALUE = "${CANARY}"\n`);
    chmodSync(secret, 0o600);
    writeFileSync(join(workspace, "honest.py"), "VALUE = 2\n");
    symlinkSync(secret, join(workspace, "linked.py"));
    execFileSync("mkfifo", [join(workspace, "fifo.py")]);
    const task: EvalTask = {
      id: "t",
      bugType: "x",
      files: {},
      hiddenFiles: { "test_hidden.py": HIDDEN_TEST },
      solutionFiles: ["honest.py", "linked.py", "fifo.py", "deleted.py"],
    };
    const report = await runHiddenTests(task, workspace, {
      timeoutMs: 120_000,
      env: { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" },
    });
    const status = Object.fromEntries(report.tests.map((t) => [t.id.split("::").at(-1), t.status]));
    expect(status, JSON.stringify(report.tests)).toEqual({
      test_honest: "pass",
      test_linked_is_absent: "pass",
      test_fifo_is_absent: "pass",
    });
    expect(JSON.stringify(report)).not.toContain(CANARY);
  }, 180_000);
});
