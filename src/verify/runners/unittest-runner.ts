// `python -m unittest …` as the repository wrote it, through our small wrapper
// (resources/python/autogen_unittest.py): the same loading (discovery included), a JUnit
// report with each test's unittest id, single tests selected by id, and the per-test limit.
import { pythonPerTestEnv } from "../per-test-limit.ts";
import { withPytestPlugin } from "./pytest-plugin.ts";
import { pythonExecutable } from "./python-executable.ts";
import { safeIds, type TestRunner } from "./test-runner.ts";

export const UNITTEST_WRAPPER = "autogen_unittest";

/** `args`: what the command gave after `-m unittest` (`discover -s tests -t .`, module names, `-v`). */
export function unittestRunner(args: string[], evidence: string): TestRunner {
  return {
    name: "unittest",
    evidence,
    reportFormat: "junit",
    pathPrefix: [],
    // The wrapper sits next to our pytest plugin; the per-test limit goes the same way (a tighter one already set is kept).
    prepareEnv: (env, options) => withPytestPlugin(env, pythonPerTestEnv(env, options)),
    command: (selection, reportPath) => [
      pythonExecutable(),
      "-m",
      UNITTEST_WRAPPER,
      "--autogen-report",
      reportPath,
      ...(selection.kind === "tests" ? safeIds(selection.ids).flatMap((id) => ["--autogen-select", id]) : []),
      "--",
      ...args,
    ],
  };
}

/** `python -m unittest …`, `python3 -m unittest …`: the arguments after the module, or undefined when the command is not unittest. */
export function unittestArgs(argv: string[]): string[] | undefined {
  const program = argv[0]?.split("/").at(-1) ?? "";
  if (!/^python(\d+(\.\d+)?)?$/.test(program)) return undefined;
  const at = argv.indexOf("-m");
  return at > 0 && argv[at + 1] === "unittest" ? argv.slice(at + 2) : undefined;
}
