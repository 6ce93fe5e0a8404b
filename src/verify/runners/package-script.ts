// `npm test`, `npm run x`, `yarn x`, `pnpm run x`: the script package.json names, taken
// as the command to detect a runner from. Only its last `&&` step runs the tests (a build
// or lint step before it is the project's own business, not the test run's).
import { readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { z } from "zod";

const packageSchema = z.object({ scripts: z.record(z.string(), z.string()).optional() }).loose();

/** The script name an npm/yarn/pnpm invocation runs, or undefined when argv is not one. */
export function packageScriptName(argv: readonly string[]): string | undefined {
  const [tool, first, second] = argv;
  if (tool !== "npm" && tool !== "yarn" && tool !== "pnpm") return undefined;
  if (first === "test" || first === "t" || first === "tst") return "test";
  if ((first === "run" || first === "run-script") && second) return second;
  if (tool !== "npm" && first && !first.startsWith("-")) return first;
  return undefined;
}

/** The script's text, or an error saying what is missing. Extra arguments after the name are appended, as npm does. */
export function readPackageScript(dir: string, argv: readonly string[]): string | undefined {
  const name = packageScriptName(argv);
  if (!name) return undefined;
  let text: string;
  try {
    text = readWorktreeTextSync(dir, "package.json", { maxBytes: 1024 * 1024 });
  } catch {
    throw new Error(`the test command "${argv.join(" ")}" runs a package.json script, but the repository has no package.json`);
  }
  const parsed = packageSchema.safeParse(JSON.parse(text));
  const script = parsed.success ? parsed.data.scripts?.[name] : undefined;
  if (!script) throw new Error(`the test command "${argv.join(" ")}" runs the package.json script "${name}", which package.json does not define`);
  const at = argv.indexOf(name);
  const extra = argv.slice(at + 1).filter((a) => a !== "--");
  return [lastStep(script), ...extra].join(" ");
}

/** The step of `a && b && c` that runs the tests: the last one. */
export function lastStep(script: string): string {
  return script.split("&&").at(-1)?.trim() ?? script;
}
