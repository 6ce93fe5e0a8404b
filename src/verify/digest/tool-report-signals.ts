// How test runners and build tools of several ecosystems report a failure, in their documented
// formats: a failing test's own heading (the reason) weighs more than the tool's closing
// summary (the consequence), and both more than plain error vocabulary. Each rule names the
// tool whose format it reads; none is keyed to one project's words.

export type ToolSignal = { name: string; pattern: RegExp; weight: number };

/** A failing test's heading: where the runner says which test failed and why. */
const HEAD = 5;
/** A runner's or build tool's verdict or a crash report: why the step stopped. */
const VERDICT = 4;
/** A run's summary counting failures. */
const SUMMARY = 3;

export const TOOL_SIGNALS: ToolSignal[] = [
  // Erlang: eunit (`mod_tests: name_test...*failed*`, `**error:{assertEqual,…}`), common_test
  // (`%%% suite ==> case: FAILED`), the runtime's crash reports and the shell's exceptions.
  { name: "eunit failed test", pattern: /\.\.\.\s*\*(failed|timed out)\*/, weight: HEAD },
  { name: "eunit error term", pattern: /^\s*\*\*(error|exit|throw):/, weight: VERDICT },
  { name: "common_test failed case", pattern: /^%%% \S+ ==> .*\bFAILED\b|^%%% \S+ ==> \{/, weight: HEAD },
  { name: "erlang crash report", pattern: /^\s*=(ERROR|CRASH|SUPERVISOR) REPORT=*/, weight: VERDICT },
  {
    name: "erlang exception",
    pattern: /^\s*\*\* (exception (error|exit|throw)|Reason for termination)\b/,
    weight: VERDICT,
  },
  {
    name: "erlang error term",
    pattern: /\{(error|badmatch|case_clause|function_clause|badarg|undef|noproc|timeout),/,
    weight: SUMMARY,
  },
  {
    name: "common_test summary",
    pattern: /\bTEST COMPLETE, \d+ ok, [1-9]\d* failed\b|^\s*Failed [1-9]\d* tests?\. Passed \d+/,
    weight: SUMMARY,
  },
  // Ruby: Minitest (`  1) Failure:` / `  1) Error:`, `N runs, N assertions, N failures, N errors`),
  // RSpec (`Failures:`, `Failure/Error:`, `N examples, N failures`, `rspec ./spec/x_spec.rb:12`), rake.
  { name: "minitest failure heading", pattern: /^\s*\d+\) (Failure|Error):\s*$/, weight: HEAD },
  { name: "rspec failure", pattern: /^\s*Failure\/Error:/, weight: HEAD },
  { name: "rspec failed example", pattern: /^\s*rspec \.?\/?[\w./-]+:\d+(\s|$)/, weight: VERDICT },
  { name: "rspec failures heading", pattern: /^\s*(Failures|Failed examples):\s*$/, weight: SUMMARY },
  {
    name: "minitest summary",
    pattern: /\b\d+ (runs|tests), \d+ assertions, (\d+ failures, [1-9]\d* errors|[1-9]\d* failures)/,
    weight: SUMMARY,
  },
  { name: "rspec summary", pattern: /\b\d+ examples?, [1-9]\d* failures?\b/, weight: SUMMARY },
  { name: "rake aborted", pattern: /^\s*rake aborted!/, weight: VERDICT },
  // PHP: PHPUnit (`There was 1 failure:`, `1) FooTest::testBar`, `FAILURES!`/`ERRORS!`), the
  // interpreter's fatal errors, Composer's unsolvable requirements and its exceptions.
  { name: "phpunit failures heading", pattern: /^There (was|were) \d+ (failures?|errors?):?\s*$/, weight: VERDICT },
  { name: "phpunit failed test", pattern: /^\d+\) [\w\\]+::\w+/, weight: HEAD },
  { name: "phpunit verdict", pattern: /^(FAILURES|ERRORS)!\s*$/, weight: SUMMARY },
  { name: "php fatal error", pattern: /\b(PHP )?(Fatal|Parse|Catchable fatal) error:/, weight: VERDICT },
  { name: "composer problem", pattern: /^\s*Problem \d+\s*$|requirements could not be resolved/, weight: SUMMARY },
  { name: "bracketed exception", pattern: /^\s*\[[\w\\.]+(Exception|Error)\]\s*$/, weight: VERDICT },
  // Scala: ScalaTest through sbt (`- name *** FAILED ***`), sbt's `[error] Failed tests:` and totals.
  { name: "scalatest failed test", pattern: /\*\*\* FAILED \*\*\*/, weight: HEAD },
  {
    name: "sbt failed tests",
    pattern: /^\[error\] (Failed tests:|Error during tests:|\(.*\) sbt\.\w+Exception)/,
    weight: VERDICT,
  },
  {
    name: "sbt total",
    pattern: /\bFailed: Total \d+, Failed [1-9]|\*\*\* [1-9]\d* TESTS? FAILED \*\*\*/,
    weight: SUMMARY,
  },
  // Java: Surefire (`testBar(com.FooTest)  Time elapsed: 0.1 sec  <<< FAILURE!`), Maven's goal
  // failure, Gradle's per-test line (`com.FooTest > testBar FAILED`) and its task failure.
  { name: "surefire failed test", pattern: /<<< (FAILURE|ERROR)!/, weight: HEAD },
  { name: "gradle failed test", pattern: /^\s*[\w.$]+ > .+ FAILED\s*$/, weight: HEAD },
  { name: "maven goal failed", pattern: /^\[ERROR\] Failed to execute goal\b/, weight: VERDICT },
  { name: "gradle task failed", pattern: /^> Task \S+ FAILED\s*$|^Execution failed for task\b/, weight: SUMMARY },
  {
    name: "surefire failed list",
    pattern: /^\s*(\[ERROR\] )?(Failed tests|Tests in error|Failures|Errors):\s*$/,
    weight: SUMMARY,
  },
  // Any compiler or checker: a diagnostic `path:line[:col]: … error …` whatever stands between.
  {
    name: "diagnostic with error",
    pattern: /^\s*[\w./\\-]+\.\w+:\d+(:\d+)?:.*\b(error|Error|ERROR)\b/,
    weight: VERDICT,
  },
];

/** Lines that continue a tool's failure report below its heading. */
export const TOOL_CONTINUATION = new RegExp(
  [
    // sbt and Maven prefix every line: the message's indented body follows the prefix.
    /^\[(info|error|ERROR)\]\s{2,}\S/.source,
    // PHPUnit's comparison diff and the bare `path:line` frames below it.
    /^(--- Expected|\+\+\+ Actual|@@ .* @@|[-+]['"\w[])/.source,
    /^\s*[\w./\\-]+\.\w+:\d+\s*$/.source,
    // Minitest's `FooTest#test_bar [test/foo_test.rb:12]:` under `1) Failure:`.
    /^\s*[\w:]+#\S+( \[.*:\d+\])?:\s*$/.source,
  ].join("|"),
);

export function toolSignal(line: string): number {
  let score = 0;
  for (const { pattern, weight } of TOOL_SIGNALS) if (weight > score && pattern.test(line)) score = weight;
  return score;
}
