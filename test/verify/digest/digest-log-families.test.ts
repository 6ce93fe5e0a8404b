// The digest on excerpts of real failed builds from several CI systems and tools (see
// test/fixtures/digest/excerpts/README.md for each one's source): the line a person marked as
// the explanation must be in a digest much shorter than the excerpt, whatever words the tool uses.
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { digestLog, digestLogStream } from "../../../src/verify/digest/digest-log.ts";

const excerpt = (name: string) =>
  readFileSync(new URL(`../../fixtures/digest/excerpts/${name}.log`, import.meta.url), "latin1");

const families: Array<[string, string, string]> = [
  [
    "a Travis build whose command has no Rakefile (Ruby, rake)",
    "rake-travis",
    "No Rakefile found (looking for: rakefile, Rakefile, rakefile.rb, Rakefile.rb)",
  ],
  [
    "an ExUnit test failure under its heading (Elixir)",
    "exunit-travis",
    "1) test raises error message about correct usage (Mix.Tasks.IexTest)",
  ],
  [
    "an install script that cannot run (Clojure, Travis functions)",
    "install-script-travis",
    "install-jdk.sh: Permission denied",
  ],
  ["a failing Go test", "go-test-travis", "--- FAIL: TestSeparator"],
  [
    "a compiler diagnostic with file and line (Erlang, erlc)",
    "erlc-diagnostic-travis",
    "beam_ssa.erl:127: import lists:umerge/1 is unused",
  ],
  [
    "a linter's report in its own words (eslint with prettier)",
    "eslint-prettier-travis",
    "src/grammar-registry.js:639 Insert `;` (prettier/prettier)",
  ],
  ["a Maven compile error (Jenkins)", "maven-compile-jenkins", "SachaDocumentationGenerator.java:[3,13]"],
  [
    "a GHC warning that -Werror makes fatal (Haskell, cabal)",
    "ghc-werror-travis",
    "src/Text/Pandoc/Ipynb.hs:94:10: Warning:",
  ],
  [
    "a build script's panic under cargo's progress bar (Rust)",
    "cargo-build-script-panic-travis",
    "thread 'main' panicked at 'called `Result::unwrap()` on an `Err` value",
  ],
  ["a PHPUnit failure (PHP)", "phpunit-travis", "Failed asserting that false is true."],
  [
    "a style checker's findings before its command's exit line (Python, flake8)",
    "flake8-travis",
    "./thefuck/rules/terraform_init.py:8:9: E128 continuation line under-indented",
  ],
  [
    "a CMake configure error with its call stack (C, cmake)",
    "cmake-missing-package-travis",
    "CMake Error at /usr/share/cmake-3.2/Modules/FindPackageHandleStandardArgs.cmake:138 (message):",
  ],
];

describe("digestLog on real logs of several families", () => {
  for (const [family, name, marked] of families) {
    it(`finds ${family}`, () => {
      const log = excerpt(name);
      const digest = digestLog(log, { maxLines: 12 });
      expect(digest.text).toContain(marked);
      expect(digest.text.split("\n").length).toBeLessThanOrEqual(12);
      expect(digest.logLines).toBeGreaterThan(60);
    });
  }
});

describe("the failing step", () => {
  it("shows the last command that ran and the runner's line that it exited non-zero, not the CI's epilogue", () => {
    // rake-travis: Travis echoes `$ rake`, the output, then `The command "rake" exited with 1.` and `Done. Your build exited with 1.`
    const digest = digestLog(excerpt("rake-travis"), { maxLines: 12 });
    expect(digest.text).toContain('The command "rake" exited with 1.');
    expect(digest.text).not.toContain("Done. Your build exited with 1.");
  });
});

describe("the failing step on Jenkins", () => {
  it("takes `[job] $ command` as a step's start and `Build step '…' marked build as failure` as its failed end, so the step's own output is shown", () => {
    // jenkins-python-step (whole log): `[push-comment-github] $ python /tmp/jenkins….py` prints a Revapi
    // report (what a person marked as the reason) before a Python traceback and Jenkins' verdict.
    const digest = digestLog(excerpt("jenkins-python-step"), { maxLines: 30 });
    expect(digest.text).toContain("[push-comment-github] $ python /tmp/jenkins6935586436688970599.py");
    expect(digest.text).toContain("API changes: 1 (Detected by [Revapi]");
    expect(digest.text).toContain("Build step 'Execute Python script' marked build as failure");
  });
});

describe("progress redrawn in place is not read", () => {
  it("leaves out a line a lone carriage return sent back to be overwritten (mocha's spec reporter)", () => {
    // mocha-spec-redraw-travis: each test prints `  name: ` then `\r  ✓ name: 5ms` over it; the
    // overwritten halves ending in `: ` crowded out the two failures.
    const digest = digestLog(excerpt("mocha-spec-redraw-travis"), { maxLines: 12 });
    expect(digest.text).toContain(
      "  1) AtomApplication waits until all the windows have saved their state before quitting:\n     Error: timeout of 60000ms exceeded.",
    );
    expect(digest.text).not.toMatch(/: \n/);
  });

  it("leaves out a line the next one redraws by moving the cursor up (a mocha progress bar)", () => {
    // mocha-cursor-up-travis: 43 frames of a bar saying `1 failing`, each starting with ESC[1A.
    const digest = digestLog(excerpt("mocha-cursor-up-travis"), { maxLines: 12 });
    expect(digest.text).toContain("  3 failing");
    expect(digest.text).toContain("Error: The baseline file inferTypes1.types has changed.");
  });

  it("reads the same lines from a stream cut anywhere: right after a lone \\r, between \\r and \\n", async () => {
    // Pieces of at most 97 bytes, with or without a cut right after every \r (a lone one, or the first half of \r\n).
    const cutInto = (text: string, afterCr: boolean) =>
      (async function* () {
        const bytes = Buffer.from(text, "latin1");
        let from = 0;
        for (let i = 1; i <= bytes.length; i++) {
          if (i === bytes.length || i - from === 97 || (afterCr && bytes[i - 1] === 13)) {
            yield bytes.subarray(from, i);
            from = i;
          }
        }
      })();
    const log = excerpt("mocha-spec-redraw-travis");
    // The excerpt as a Windows runner would write it: \r\n line ends, lone \r redraws kept.
    const crlf = log.replace(/\n/g, "\r\n");
    for (const text of [log, crlf]) {
      for (const afterCr of [true, false])
        expect(await digestLogStream(cutInto(text, afterCr), { maxLines: 12 })).toEqual(
          digestLog(text, { maxLines: 12 }),
        );
    }
  });
});

describe("error vocabulary read by its shape, not one tool's words", () => {
  it("counts a verdict line that is only ERROR (R CMD check) and not a function named printError in an example", () => {
    // r-cmd-check-travis: R CMD check prints `* checking tests ...`, ` ERROR` on a line of its own, the
    // failing test output; 12,000 lines later its examples section lists `printError` among aliases.
    const digest = digestLog(excerpt("r-cmd-check-travis"), { maxLines: 12 });
    expect(digest.text).toContain("\n ERROR\nRunning the tests in");
    expect(digest.text).not.toContain("printError");
  });

  it("takes a capitalised exception name as a failure, not a test method named onError that was skipped (Gradle)", () => {
    // gradle-test-travis: one `> notificationDelay FAILED` with its AssertionError among hundreds of
    // SKIPPED tests, some named `serializeAllowsOnError` or `fatalError`.
    const digest = digestLog(excerpt("gradle-test-travis"), { maxLines: 30 });
    expect(digest.text).toContain(
      "SerializedObserverTest > notificationDelay FAILED\n    java.lang.AssertionError: expected same:",
    );
    expect(digest.text).not.toMatch(/Error SKIPPED/);
  });

  it("counts `Error: message` at a line's start (mocha), whatever the progress bar above it says", () => {
    // mocha-baseline-travis: a progress bar redrawn 40 times with `1 failing`, then `5 failing` and
    // five `Error: The baseline file … has changed.` with their stacks.
    const digest = digestLog(excerpt("mocha-baseline-travis"), { maxLines: 12 });
    expect(digest.text).toMatch(/Error: The baseline file \S+ has changed\./);
  });
});
