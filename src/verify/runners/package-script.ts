// `npm test`, `npm run x`, `yarn x`, `pnpm run x`: the script package.json names, taken
// as the command to detect a runner from. A script of several `&&` steps (lint, build,
// tests, size checks) is split by the caller, which runs the step that runs the tests.
import { readWorktreeTextSync } from "../../workspace/read-worktree-file.ts";
import { z } from "zod";

const packageSchema = z.object({ scripts: z.record(z.string(), z.string()).optional() }).loose();

/** The script name an npm/yarn/pnpm invocation runs, or undefined when argv is not one. */
export function packageScriptName(argv: readonly string[]): string | undefined {
  const [tool, first, second] = argv;
  if (tool !== "npm" && tool !== "yarn" && tool !== "pnpm") return undefined;
  if (first === "test" || first === "t" || first === "tst") return "test";
  if ((first === "run" || first === "run-script") && second) return second;
  if (tool !== "npm" && first && !first.startsWith("-") && first !== "exec" && first !== "dlx") return first;
  return undefined;
}

/**
 * The script's text, or an error saying what is missing. Extra arguments after the name are
 * appended, as npm does. `yarn x` and `pnpm x` run the package's binary x when no script has
 * that name: undefined then, and the caller takes the binary.
 */
export function readPackageScript(dir: string, argv: readonly string[]): string | undefined {
  const name = packageScriptName(argv);
  if (!name) return undefined;
  let text: string;
  try {
    text = readWorktreeTextSync(dir, "package.json", { maxBytes: 1024 * 1024 });
  } catch {
    throw new Error(
      `the test command "${argv.join(" ")}" runs a package.json script, but the repository has no package.json`,
    );
  }
  const parsed = packageSchema.safeParse(JSON.parse(text));
  const script = parsed.success ? parsed.data.scripts?.[name] : undefined;
  const explicit = argv[0] === "npm" || argv[1] === "run" || argv[1] === "run-script" || name === "test";
  if (!script && !explicit) return undefined;
  if (!script)
    throw new Error(
      `the test command "${argv.join(" ")}" runs the package.json script "${name}", which package.json does not define`,
    );
  const at = argv.indexOf(name);
  const extra = argv.slice(at + 1).filter((a) => a !== "--");
  return [script, ...extra].join(" ");
}

/** The steps of `a && b && c`, in order. */
export function scriptSteps(script: string): string[] {
  return script
    .split("&&")
    .map((step) => step.trim())
    .filter((step) => step.length > 0);
}

/** The step of `a && b && c` that runs last. */
export function lastStep(script: string): string {
  return scriptSteps(script).at(-1) ?? script;
}
