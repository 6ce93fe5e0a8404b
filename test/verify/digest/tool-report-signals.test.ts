// Each tool rule on lines written from the tool's documented output format (not copied from
// any data set), with the same tool's passing lines that must not count as a failure; then
// whole synthetic CI logs per ecosystem, where the failing test's report must reach a short
// digest although the build tool's summary and noise come after it.
import { describe, expect, it } from "vitest";
import { digestLog } from "../../../src/verify/digest/digest-log.ts";
import { lineSignal, STEP_START } from "../../../src/verify/digest/log-line-signals.ts";
import { TOOL_CONTINUATION, TOOL_SIGNALS } from "../../../src/verify/digest/tool-report-signals.ts";

const rule = (name: string) => {
  const found = TOOL_SIGNALS.find((r) => r.name === name);
  if (!found) throw new Error(`no rule named ${name}`);
  return found;
};

/** [rule, lines it must match, lines of the same tool it must not match]. */
const cases: Array<[string, string[], string[]]> = [
  [
    "eunit failed test",
    ["  calc_tests: add_test...*failed*", "  calc_tests: slow_test...*timed out*"],
    ["  calc_tests: add_test...ok", "  All 4 tests passed."],
  ],
  [
    "eunit error term",
    ["**error:{assertEqual,[{module,calc_tests},", "**exit:{noproc,{gen_server,call,[srv,ping]}}"],
    ['  output:<<"">>'],
  ],
  [
    "common_test failed case",
    ["%%% calc_SUITE ==> add_case: FAILED", "%%% calc_SUITE ==> {badmatch,3}"],
    ["%%% calc_SUITE ==> add_case: OK"],
  ],
  [
    "erlang crash report",
    ["=ERROR REPORT==== 3-Dec-2026::10:00:00.000000 ===", "=CRASH REPORT==== 3-Dec-2026::10:00:00 ==="],
    ["=INFO REPORT==== 3-Dec-2026::10:00:00 ==="],
  ],
  [
    "erlang exception",
    ["** exception error: no match of right hand side value 3", "** Reason for termination =="],
    ["** at node nonode@nohost **"],
  ],
  [
    "erlang error term",
    ["{error,{badmatch,{ok,3}}}", '  {badarg,[{erlang,list_to_integer,["x"],[]}]}'],
    ["{ok,[calc]}"],
  ],
  [
    "common_test summary",
    ["TEST COMPLETE, 11 ok, 1 failed of 12 test cases", "Failed 2 tests. Passed 40 tests."],
    ["TEST COMPLETE, 12 ok, 0 failed of 12 test cases", "All 12 tests passed."],
  ],
  ["minitest failure heading", ["  1) Failure:", "  2) Error:"], ["  1) Skipped:"]],
  [
    "rspec failure",
    ["     Failure/Error: expect(cart.total).to eq(10)"],
    ["     # ./spec/cart_spec.rb:12:in `block (2 levels) in <top (required)>'"],
  ],
  [
    "rspec failed example",
    ["rspec ./spec/models/cart_spec.rb:12 # Cart totals the items"],
    ["Run options: include {:focus=>true}"],
  ],
  [
    "rspec failures heading",
    ["Failures:", "Failed examples:"],
    ["Pending: (Failures listed here are expected and do not affect your suite's status)"],
  ],
  [
    "minitest summary",
    ["12 runs, 30 assertions, 1 failures, 0 errors, 0 skips", "12 runs, 30 assertions, 0 failures, 2 errors, 0 skips"],
    ["12 runs, 30 assertions, 0 failures, 0 errors, 0 skips"],
  ],
  ["rspec summary", ["42 examples, 3 failures", "1 example, 1 failure, 2 pending"], ["42 examples, 0 failures"]],
  ["rake aborted", ["rake aborted!"], ["rake db:migrate"]],
  ["phpunit failures heading", ["There was 1 failure:", "There were 2 errors:"], ["There was 1 risky test:"]],
  [
    "phpunit failed test",
    ["1) CartTest::testTotal", "2) App\\Tests\\CartTest::testEmpty with data set #0"],
    ["PHPUnit 9.5.0 by Sebastian Bergmann and contributors."],
  ],
  ["phpunit verdict", ["FAILURES!", "ERRORS!"], ["OK (12 tests, 30 assertions)"]],
  [
    "php fatal error",
    [
      "PHP Fatal error:  Uncaught Error: Call to undefined function foo() in /app/src/a.php:3",
      "Parse error: syntax error, unexpected '}' in /app/b.php on line 9",
    ],
    ["PHP Deprecated:  Function create_function() is deprecated"],
  ],
  [
    "composer problem",
    ["  Problem 1", "Your requirements could not be resolved to an installable set of packages."],
    ["Loading composer repositories with package information"],
  ],
  [
    "bracketed exception",
    ["  [RuntimeException]", "  [Composer\\Downloader\\TransportException]"],
    ["  [OK] Cache cleared"],
  ],
  [
    "scalatest failed test",
    ["[info] - should add two numbers *** FAILED ***", "- adds two numbers *** FAILED ***"],
    ["[info] - should add two numbers"],
  ],
  [
    "sbt failed tests",
    ["[error] Failed tests:", "[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful"],
    ["[success] Total time: 12 s"],
  ],
  [
    "sbt total",
    ["[error] Failed: Total 10, Failed 1, Errors 0, Passed 9", "[info] *** 1 TEST FAILED ***"],
    ["[info] Passed: Total 10, Failed 0, Errors 0, Passed 10", "[info] All tests passed."],
  ],
  [
    "surefire failed test",
    [
      "testTotal(com.shop.CartTest)  Time elapsed: 0.012 sec  <<< FAILURE!",
      "[ERROR] testEmpty  Time elapsed: 0.01 s  <<< ERROR!",
    ],
    ["Running com.shop.CartTest"],
  ],
  [
    "gradle failed test",
    ["com.shop.CartTest > testTotal FAILED", "CartTest > total is the sum of prices FAILED"],
    ["com.shop.CartTest > testTotal PASSED", "com.shop.CartTest > testTotal SKIPPED"],
  ],
  [
    "maven goal failed",
    [
      "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.22.2:test (default-test) on project shop",
    ],
    ["[INFO] BUILD SUCCESS"],
  ],
  [
    "gradle task failed",
    ["> Task :test FAILED", "Execution failed for task ':compileJava'."],
    ["> Task :test", "BUILD SUCCESSFUL in 3s"],
  ],
  ["surefire failed list", ["Failed tests: ", "Tests in error: ", "[ERROR] Failures: "], ["Results :"]],
  [
    "diagnostic with error",
    [
      "src/calc.erl:12: syntax error before: ')'",
      "doc/ref.xml:72: element name: validity error : Element marker is not declared",
      "lib/a.c:3:5: fatal error: b.h: No such file",
    ],
    ["src/calc.erl:12: Warning: variable 'X' is unused"],
  ],
];

describe("tool report rules, each on its tool's documented format", () => {
  for (const [name, hits, misses] of cases) {
    it(`${name}: matches the failure lines and scores them at the rule's weight, not the passing ones`, () => {
      const { pattern, weight } = rule(name);
      for (const line of hits) {
        expect(pattern.test(line), line).toBe(true);
        expect(lineSignal(line), line).toBeGreaterThanOrEqual(weight);
      }
      for (const line of misses) expect(pattern.test(line), line).toBe(false);
    });
  }

  it("every rule has a case here", () => {
    expect(new Set(cases.map(([name]) => name))).toEqual(new Set(TOOL_SIGNALS.map((r) => r.name)));
  });

  it("a failing test's heading weighs more than the build tool's verdict on it", () => {
    expect(lineSignal("com.shop.CartTest > testTotal FAILED")).toBeGreaterThan(lineSignal("BUILD FAILED in 12s"));
    expect(lineSignal("  1) Failure:")).toBeGreaterThan(lineSignal("rake aborted!"));
    expect(lineSignal("[info] - adds *** FAILED ***")).toBeGreaterThan(
      lineSignal("[error] Failed: Total 3, Failed 1, Errors 0, Passed 2"),
    );
  });

  it("continues a report through its tools' body lines", () => {
    const body = [
      "[info]   3 did not equal 4 (CalcSpec.scala:12)",
      "--- Expected",
      "+++ Actual",
      "-'apples'",
      "+'apple'",
      "/app/tests/CartTest.php:43",
    ];
    for (const line of [...body, "CartTest#test_total [test/cart_test.rb:12]:"]) {
      expect(TOOL_CONTINUATION.test(line), line).toBe(true);
    }
    for (const line of ["[info] Compiling 3 Scala sources", "Downloading https://repo1.maven.org/x.pom"]) {
      expect(TOOL_CONTINUATION.test(line), line).toBe(false);
    }
  });

  it("takes npm's echoed commands as a step's start but not Gradle's `> Task` or `> There were failing tests.`", () => {
    expect(STEP_START.test("> shop@1.0.0 test /home/ci/shop")).toBe(true);
    expect(STEP_START.test("> mocha test/")).toBe(true);
    expect(STEP_START.test("> Task :test")).toBe(false);
    expect(STEP_START.test("> There were failing tests. See the report at: file:///b/index.html")).toBe(false);
  });
});

/**
 * A CI log: setup noise, the failing command, the run's passing output with `report` in its middle (the
 * other tests go on running after a failure), the tool's closing `after` lines, the runner's exit line.
 */
function ciLog(command: string, passing: string[], report: string[], after: string[]): string {
  const setup = Array.from({ length: 120 }, (_, i) => `Installing dependency-${i} (${i % 7}.${i % 3}.0)`);
  const progress = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => `${passing[(from + i) % passing.length]} ${from + i}`);
  const run = [...progress(0, 150), ...report, ...progress(150, 80), ...after];
  return [
    ...setup,
    `$ ${command}`,
    ...run,
    `The command "${command}" exited with 1.`,
    "",
    "Done. Your build exited with 1.",
  ].join("\n");
}

const logs: Array<[string, string, string[], string[], string[], string]> = [
  [
    "rebar3 eunit (Erlang)",
    "rebar3 eunit",
    ["  calc_tests: case_test...ok"],
    [
      "module 'calc_tests'",
      "  calc_tests: add_test...*failed*",
      "in function calc_tests:'-add_test/0-fun-0-'/0 (test/calc_tests.erl, line 12)",
      "**error:{assertEqual,[{module,calc_tests},",
      "                      {expected,4},",
      "                      {value,5}]}",
    ],
    [
      "=======================================================",
      "  Failed: 1.  Skipped: 0.  Passed: 150.",
      "===> Error running tests",
    ],
    "calc_tests: add_test...*failed*",
  ],
  [
    "Minitest through rake (Ruby)",
    "bundle exec rake test",
    ["Run options: --seed 1234 # Running:", "."],
    ["", "  1) Failure:", "CartTest#test_total [test/cart_test.rb:12]:", "Expected: 10", "  Actual: 9", ""],
    [
      "151 runs, 300 assertions, 1 failures, 0 errors, 0 skips",
      "rake aborted!",
      "Command failed with status (1)",
      "Tasks: TOP => test",
      "(See full trace by running task with --trace)",
    ],
    "CartTest#test_total [test/cart_test.rb:12]:",
  ],
  [
    "RSpec (Ruby)",
    "bundle exec rspec",
    ["Cart adds an item"],
    [
      "Failures:",
      "",
      "  1) Cart totals the items",
      "     Failure/Error: expect(cart.total).to eq(10)",
      "",
      "       expected: 10",
      "            got: 9",
    ],
    [
      "Finished in 1.2 seconds (files took 0.5 seconds to load)",
      "151 examples, 1 failure",
      "",
      "Failed examples:",
      "",
      "rspec ./spec/cart_spec.rb:12 # Cart totals the items",
    ],
    "Failure/Error: expect(cart.total).to eq(10)",
  ],
  [
    "PHPUnit (PHP)",
    "vendor/bin/phpunit",
    ["............................................................... 63 / 150 ( 42%)"],
    [
      "There was 1 failure:",
      "",
      "1) CartTest::testTotal",
      "Failed asserting that 9 matches expected 10.",
      "",
      "/app/tests/CartTest.php:21",
    ],
    ["", "FAILURES!", "Tests: 150, Assertions: 300, Failures: 1."],
    "1) CartTest::testTotal",
  ],
  [
    "ScalaTest through sbt (Scala)",
    "sbt test",
    ["[info] - should keep the order"],
    [
      "[info] CalcSpec:",
      "[info] - should add two numbers *** FAILED ***",
      "[info]   5 did not equal 4 (CalcSpec.scala:12)",
    ],
    [
      "[info] Run completed in 2 seconds.",
      "[info] *** 1 TEST FAILED ***",
      "[error] Failed: Total 151, Failed 1, Errors 0, Passed 150",
      "[error] Failed tests:",
      "[error] \tcalc.CalcSpec",
      "[error] (Test / test) sbt.TestsFailedException: Tests unsuccessful",
      "[error] Total time: 30 s, completed 3 Dec 2026, 10:00:00",
    ],
    "[info] - should add two numbers *** FAILED ***",
  ],
  [
    "Gradle (Java)",
    "./gradlew test",
    ["com.shop.ItemTest > keepsName PASSED"],
    [
      "com.shop.CartTest > testTotal FAILED",
      "    java.lang.AssertionError: expected:<10> but was:<9>",
      "        at org.junit.Assert.fail(Assert.java:89)",
    ],
    [
      "151 tests completed, 1 failed",
      "> Task :test FAILED",
      "FAILURE: Build failed with an exception.",
      "* What went wrong:",
      "Execution failed for task ':test'.",
      "> There were failing tests. See the report at: file:///home/ci/shop/build/reports/tests/test/index.html",
      "* Try:",
      "Run with --stacktrace option to get the stack trace.",
      "BUILD FAILED in 40s",
    ],
    "com.shop.CartTest > testTotal FAILED",
  ],
  [
    "Maven Surefire (Java)",
    "mvn -B test",
    ["[INFO] Running com.shop.ItemTest"],
    [
      "[ERROR] Tests run: 3, Failures: 1, Errors: 0, Skipped: 0, Time elapsed: 0.05 s <<< FAILURE! - in com.shop.CartTest",
      "[ERROR] testTotal(com.shop.CartTest)  Time elapsed: 0.01 s  <<< FAILURE!",
      "java.lang.AssertionError: expected:<10> but was:<9>",
    ],
    [
      "[INFO] Results:",
      "[ERROR] Failures: ",
      "[ERROR]   CartTest.testTotal:21 expected:<10> but was:<9>",
      "[ERROR] Tests run: 151, Failures: 1, Errors: 0, Skipped: 0",
      "[INFO] BUILD FAILURE",
      "[ERROR] Failed to execute goal org.apache.maven.plugins:maven-surefire-plugin:2.22.2:test (default-test) on project shop: There are test failures.",
    ],
    "testTotal(com.shop.CartTest)  Time elapsed: 0.01 s  <<< FAILURE!",
  ],
];

describe("digest of a synthetic CI log per ecosystem", () => {
  for (const [tool, command, before, report, after, head] of logs) {
    it(`shows the failing test's report for ${tool} in 12 lines`, () => {
      const digest = digestLog(ciLog(command, before, report, after), { maxLines: 12 });
      expect(digest.text).toContain(head);
      expect(digest.text.split("\n").length).toBeLessThanOrEqual(12);
    });
  }

  it("folds a stack trace behind sbt's `[error]` prefix like any other: its first 12 frames, not the 30", () => {
    const frames = Array.from(
      { length: 30 },
      (_, i) => `[error] \tat sbt.internal.Step${i}.run(Step${i}.scala:${i + 10})`,
    );
    const log = [
      ...Array.from({ length: 200 }, (_, i) => `[info] Resolving org.example#lib-${i};1.${i % 9}.0 ...`),
      "$ sbt mimaReportBinaryIssues",
      "[error]  * method total()Int in class shop.Cart does not have a correspondent in current version",
      '[error]    filter with: ProblemFilters.exclude[DirectMissingMethodProblem]("shop.Cart.total")',
      "[error] java.lang.RuntimeException: shop: Binary compatibility check failed!",
      ...frames,
      "[error] (shop / mimaReportBinaryIssues) shop: Binary compatibility check failed!",
      'The command "sbt mimaReportBinaryIssues" exited with 1.',
    ].join("\n");
    const digest = digestLog(log, { maxLines: 30 });
    expect(digest.text).toContain("Binary compatibility check failed!");
    // The first 12 frames stay; the middle of the trace goes (its end may still show as the step's last lines).
    expect(digest.text).toContain("Step11.run");
    expect(digest.text).not.toContain("Step15.run");
  });

  it("shows a compiler's first error in the failing step before the ones that follow from it", () => {
    const first = "[error] /ci/shop/src/main/scala/shop/Cart.scala:3:8: object Money is not a member of package shop";
    // What follows from it reads differently each time (different names, different complaints).
    const complaints = [
      "not found: type Money",
      "value total is not a member of shop.Cart",
      "type mismatch; found Int required Money",
      "missing argument list for method sum",
      "not found: value price",
      "overloaded method apply with alternatives",
      "value amount is not a member of Any",
      "ambiguous implicit values",
      "not found: object Currency",
      "too many arguments for method add",
    ];
    const cascade = complaints.map((c, i) => [
      `[error] /ci/shop/src/main/scala/shop/Use${i}.scala:${i + 5}:3: ${c}`,
      `[error]   val v${i} = use${i}()`,
      "[error]          ^",
    ]);
    const setup = Array.from({ length: 200 }, (_, i) => `[info] Resolving org.example#lib-${i};1.${i % 9}.0 ...`);
    const log = [
      ...setup,
      "$ sbt compile",
      "[info] Compiling 40 Scala sources to /ci/shop/target/scala-2.13/classes ...",
      first,
      "[error] import shop.Money",
      "[error]        ^",
      // Another module compiles against the broken one and fails in its turn.
      "[info] done compiling",
      "[info] Compiling 30 Scala sources to /ci/shop/api/target/scala-2.13/classes ...",
      "[info] Formatting 30 Scala sources ...",
      "[info] Reformatted 0 Scala sources",
      ...cascade.flat(),
      "[error] 11 errors found",
      "[error] (Compile / compileIncremental) Compilation failed",
      'The command "sbt compile" exited with 1.',
    ].join("\n");
    const digest = digestLog(log, { maxLines: 12 });
    expect(digest.text).toContain(first);
  });
});
