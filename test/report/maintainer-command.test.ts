// The report's verification command is the one a maintainer would run in their checkout:
// no host interpreter path under a home directory, no report file in the bot's temp dir.
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { emptyOutcome, evidenceOf } from "../../src/engine/task.ts";
import { maintainerCommand } from "../../src/report/maintainer-command.ts";
import { renderReport } from "../../src/report/render-report.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

describe("the report's verification command", () => {
  it("shows `python3 -m pytest …` for a real pytest run, not the interpreter's path or the bot's --junitxml and plugin", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-cmd-"));
    await writeFile(join(repo, "test_ok.py"), "def test_ok():\n    assert 1 + 1 == 2\n");
    const report = await localVerifier(detectRunner(repo), { timeoutMs: 60_000 }).run(repo, {
      kind: "tests",
      ids: ["test_ok.py::test_ok"],
    });
    // The run itself still uses the bot's arguments.
    expect(report.run.argv.join(" ")).toContain("--junitxml=");
    const outcome = emptyOutcome("template");
    outcome.evidence.before = evidenceOf(report);
    const command = /^Command: `([^`]*)`/m.exec(renderReport(outcome, { title: "autogen: x" }))?.[1];
    expect(command).toMatch(/^python3?[\d.]* -m pytest test_ok\.py::test_ok$/);
  });

  it("drops the bot's reporter arguments for node --test, vitest and mocha and keeps the user's", () => {
    expect(
      maintainerCommand([
        "/usr/local/bin/node",
        "--test-reporter=tap",
        "--test-reporter-destination=stdout",
        "--test-reporter=junit",
        "--test-reporter-destination=/tmp/autogen-report-x/r.xml",
        "--test",
        "test/",
      ]),
    ).toEqual(["node", "--test", "test/"]);
    expect(
      maintainerCommand([
        "vitest",
        "run",
        "--reporter=default",
        "--reporter=junit",
        "--outputFile.junit=/tmp/r/report.xml",
        "-t",
        "^(adds)$",
      ]),
    ).toEqual(["vitest", "run", "-t", "^(adds)$"]);
    expect(
      maintainerCommand(["mocha", "--reporter", "xunit", "--reporter-option", "output=/tmp/r.xml", "--grep", "x"]),
    ).toEqual(["mocha", "--grep", "x"]);
    expect(maintainerCommand(["python3", "-m", "pytest", "-p", "xdist", "-o", "addopts=", "tests/"])).toEqual([
      "python3",
      "-m",
      "pytest",
      "-p",
      "xdist",
      "-o",
      "addopts=",
      "tests/",
    ]);
  });
});
