// A reproduction test on tape, whose TAP names no file: its tests are those new against the
// suite's run without it. TAP numbers a repeated name in run order, so a new test named like
// an existing one shifts the ids after it: such a file is refused by name, never guessed.
// Without the pipeline's baseline the stage makes that run itself, once.
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../../src/engine/is-test-file.ts";
import { newAgainstBaseline } from "../../../src/engine/reproduce/new-tests.ts";
import { reproduceIssue } from "../../../src/engine/reproduce/reproduce-issue.ts";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { parseAnyTap } from "../../../src/verify/parsers/parse-any-tap.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import type { TestReport } from "../../../src/verify/test-report.ts";
import { useHttpMock } from "../../support/http-mock.ts";
import { scriptAnswers, testLlm } from "../../support/llm-mock.ts";
import { npmFixture } from "../../support/npm-fixture.ts";

useHttpMock();

const tap = (...names: Array<[string, boolean]>): TestReport => ({
  run: {
    argv: [],
    exitCode: 0,
    signal: null,
    timedOut: false,
    durationMs: 1,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    isolation: "none",
  },
  source: "console",
  tests: parseAnyTap(
    `TAP version 13\n${names.map(([n, ok], i) => `# ${n}\n${ok ? "ok" : "not ok"} ${String(i + 1)} assertion`).join("\n")}\n`,
  ),
});

describe("tests new against the suite's baseline (TAP names no file)", () => {
  it("finds a new file's tests run between the others', repeated names of the suite kept apart", () => {
    const baseline = tap(["empty", true], ["shout", true], ["empty", true]);
    expect(baseline.tests.map((t) => t.id)).toEqual(["empty", "shout", "empty (2)"]);
    const withFile = tap(["empty", true], ["shout", true], ["new one", false], ["new one", false], ["empty", true]);
    const found = newAgainstBaseline(baseline, withFile);
    expect(found).toEqual({
      kind: "new",
      tests: [expect.objectContaining({ id: "new one" }), expect.objectContaining({ id: "new one (2)" })],
    });
  });

  it("refuses a new test named like an existing one: it would take that test's id", () => {
    const baseline = tap(["empty", true], ["shout", true], ["empty", true]);
    // The new file's "empty" runs second: tape calls it "empty (2)", and the suite's second "empty" becomes "empty (3)".
    const withFile = tap(["empty", true], ["empty", false], ["shout", true], ["empty", true]);
    expect(newAgainstBaseline(baseline, withFile)).toEqual({ kind: "clash", names: ["empty"] });
  });
});

describe("the reproduction stage on a real tape project with no baseline given", { timeout: 300_000 }, () => {
  it("runs the suite without the file once, and takes the file's tests from what is new", async () => {
    const dir = npmFixture(
      { tape: "^5" },
      {
        "lib/words.js":
          "exports.capitalize = function (w) { return w.charAt(0).toUpperCase() + w.slice(0).toLowerCase(); };\n",
        "test/a.js":
          "var test = require('tape');\nvar words = require('../lib/words');\ntest('empty', function (t) { t.equal(words.capitalize(''), ''); t.end(); });\n",
      },
      { scripts: { test: "tape test/*.js" } },
    );
    if (!dir) return void console.warn("tape is not in the npm cache: skipped");
    scriptAnswers([
      {
        stage: "reproduce",
        content: {
          path: "test/b.js",
          content:
            "var test = require('tape');\nvar words = require('../lib/words');\ntest('capitalize tea', function (t) { t.equal(words.capitalize('tea'), 'Tea'); t.end(); });\n",
          expectedFailure: "should be strictly equal",
        },
      },
    ]);
    const runner = detectRunner(dir);
    const sandbox = { timeoutMs: 60_000 };
    const cost = { testRuns: 0, testSeconds: 0 };
    const result = await reproduceIssue(
      {
        workspace: dir,
        visible: { kind: "reproduce" },
        verifier: localVerifier(runner, sandbox),
        sandbox,
        runnerName: runner.name,
        isTestFile,
        budget: { candidates: 1, minutes: 5 },
        description: "`capitalize('tea')` returns `Ttea`; it should be `Tea`.",
      },
      testLlm(),
      cost,
      { attempts: 1 },
    );
    expect(result).toMatchObject({ ok: true, path: "test/b.js", testIds: ["capitalize tea"] });
    // The run with the file, and the one without it.
    expect(cost.testRuns).toBe(2);
  });
});
