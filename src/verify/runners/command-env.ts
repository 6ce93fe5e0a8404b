// A test command as a repository writes it: `env A=1 B=2 prog args` or `A=1 prog args`.
// The assignments become the run's environment (checked like any environment we pass
// into the sandbox) and the rest is the program to run; nothing is dropped.
import { FORBIDDEN_ENV_NAMES } from "../sandbox/sandbox-env.ts";

export type CommandWithEnv = { env: Record<string, string>; argv: string[] };

const ASSIGNMENT = /^([A-Za-z_][A-Za-z0-9_]*)=(.*)$/s;

export function splitEnvAssignments(argv: readonly string[]): CommandWithEnv {
  let rest = [...argv];
  const env: Record<string, string> = {};
  if (rest[0] === "env") {
    rest = rest.slice(1);
    if (rest[0]?.startsWith("-"))
      throw new Error(`the test command's "env ${rest[0]}" is not supported: write "env NAME=value ... program args"`);
  }
  while (rest.length > 0) {
    const match = ASSIGNMENT.exec(rest[0] ?? "");
    if (!match) break;
    const name = match[1] as string;
    if (FORBIDDEN_ENV_NAMES.test(name) || /^AUTOGEN_/i.test(name)) {
      throw new Error(`the test command sets ${name}, which cannot be set for test runs: remove it from the command`);
    }
    env[name] = match[2] ?? "";
    rest = rest.slice(1);
  }
  if (rest.length === 0) throw new Error("the test command sets environment variables but names no program to run");
  return { env, argv: rest };
}
