// The language the behaviour check speaks for a test runner: what the model is told to
// write (prompts/behaviour-calls.yml takes these as its trusted variables), how the module
// it names is checked, which calls are refused before anything runs, and the harness that
// runs the rest in the sandbox (resources/python/autogen_behaviour.py or
// resources/node/autogen-behaviour.mjs).
import { fileURLToPath } from "node:url";
import { pythonExecutable } from "../../verify/runners/python-executable.ts";
import { refuseJsCall } from "./js-expression.ts";

export type BehaviourLanguage = {
  name: "Python" | "JavaScript";
  /** Trusted prompt variables. */
  prompt: Record<string, string>;
  /** Why the module the model named cannot be loaded, or undefined. */
  refuseModule: (module: string) => string | undefined;
  /** Why a call (or an expected expression) is not run, or undefined. */
  refuseCall: (text: string) => Promise<string | undefined>;
  argv: (requestPath: string, resultPath: string) => string[];
  env: Record<string, string>;
};

const PYTHON_HARNESS = fileURLToPath(new URL("../../../resources/python/autogen_behaviour.py", import.meta.url));
export const NODE_HARNESS = fileURLToPath(new URL("../../../resources/node/autogen-behaviour.mjs", import.meta.url));

const PYTHON_RUNNERS = new Set(["pytest", "unittest"]);
const JS_RUNNERS = new Set(["node-test", "jest", "vitest", "mocha", "ava", "tap"]);
const DOTTED = /^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/;
const JS_PATH = /^(?!\/)(?!.*(^|\/)\.\.?(\/|$))[\w@.+-]+(\/[\w@.+-]+)*\.[cm]?[jt]s$/;
/** "raises TypeError": an expected exception, read by the harness itself. */
const RAISES = /^\s*raises\s+[A-Za-z_$][\w.$]*\s*$/;

const python: BehaviourLanguage = {
  name: "Python",
  prompt: {
    language: "Python",
    scope: "the module's public names in scope",
    examples: "`last([1, 2, 3])` or `ops.add(2, 3)`",
    expected_examples: "`[]`, `5`, `'abc'`",
    error_example: "ValueError",
    rules: "(none)",
    module: "the dotted Python module the calls need (for example `pkg.mod`)",
  },
  refuseModule: (module) =>
    DOTTED.test(module) ? undefined : `the model named no importable module (${JSON.stringify(module.slice(0, 80))})`,
  // Python's own compiler refuses a statement (compile mode "eval", in the harness).
  refuseCall: () => Promise.resolve(undefined),
  argv: (request, result) => [pythonExecutable(), PYTHON_HARNESS, request, result],
  // Set orders and string hashes the same in both runs: a difference is the code's.
  env: { PYTHONHASHSEED: "0", PYTHONDONTWRITEBYTECODE: "1" },
};

const javascript: BehaviourLanguage = {
  name: "JavaScript",
  prompt: {
    language: "JavaScript",
    scope:
      "the module's exports in scope by name and the module as `mod` (its default export or CommonJS `module.exports`)",
    examples: "`last([1, 2, 3])` or `mod.add(2, 3)`",
    expected_examples: "`[]`, `5`, `'abc'`, `({ a: 1 })`",
    error_example: "TypeError",
    rules:
      "A call is one expression: no statements, nor `function` or `class` bodies with them (an arrow with an expression body is fine); a promise is awaited, its value the output.",
    module:
      "the path of the file the calls need, relative to the repository root, as the tests import it (for example `src/flags.js` or `lib/index.ts`)",
  },
  refuseModule: (module) =>
    JS_PATH.test(module)
      ? undefined
      : `the model named no JavaScript file in the repository (${JSON.stringify(module.slice(0, 80))})`,
  refuseCall: (text) => (RAISES.test(text) ? Promise.resolve(undefined) : refuseJsCall(text)),
  argv: (request, result) => [process.execPath, ...typeStripping(), NODE_HARNESS, request, result],
  env: {},
};

/** The language of the runner's tests, or undefined for one the harness does not cover. */
export function behaviourLanguage(runnerName: string): BehaviourLanguage | undefined {
  if (PYTHON_RUNNERS.has(runnerName)) return python;
  if (JS_RUNNERS.has(runnerName)) return javascript;
  return undefined;
}

/** TypeScript modules load through node's own type stripping: on by default from node 23.6, behind a flag before. */
function typeStripping(): string[] {
  const features = process.features as { typescript?: string | false };
  return features.typescript ? [] : ["--experimental-strip-types"];
}
