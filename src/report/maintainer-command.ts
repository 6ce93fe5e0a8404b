// The test command as a maintainer would type it in their own checkout: the program by
// name rather than the host's absolute path (which can show the bot's home directory),
// and without the arguments the bot adds to read results back (report files in its
// temporary directories, its pytest plugin, reporter and colour switches).
import { basename } from "node:path";
import { PYTEST_PLUGIN } from "../verify/runners/pytest-plugin.ts";

/** Arguments that take the next one as their value, and the values that make the pair ours. */
const OURS_WITH_VALUE: Record<string, (value: string) => boolean> = {
  "-p": (value) => value === PYTEST_PLUGIN || value === "no:cacheprovider",
  "-o": (value) => value === "junit_family=xunit1",
  "--reporter": (value) => value === "xunit",
  "--reporter-option": (value) => value.startsWith("output="),
};

const OURS = new Set([
  "-rA",
  "--color=no",
  "--test-reporter=tap",
  "--test-reporter=junit",
  "--reporter=default",
  "--reporter=junit",
]);
const OURS_PREFIX = ["--junitxml", "--test-reporter-destination=", "--outputFile.junit="];

export function maintainerCommand(argv: readonly string[]): string[] {
  const [program, ...rest] = argv;
  if (program === undefined) return [];
  const out = [program.startsWith("/") ? basename(program) : program];
  for (let i = 0; i < rest.length; i++) {
    const arg = rest[i] as string;
    const next = rest[i + 1];
    if (OURS.has(arg) || OURS_PREFIX.some((prefix) => arg.startsWith(prefix))) continue;
    if (next !== undefined && OURS_WITH_VALUE[arg]?.(next)) {
      i++;
      continue;
    }
    out.push(arg);
  }
  return out;
}
