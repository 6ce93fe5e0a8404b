// The operator's .env in the folder `serve` starts from (as Probot reads it): its values
// fill in what the environment leaves unset; the environment always wins.
import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { parseEnv } from "node:util";

export function withDotEnv(env: NodeJS.ProcessEnv, dir: string): { env: NodeJS.ProcessEnv; file: string | undefined } {
  const file = join(dir, ".env");
  if (!existsSync(file)) return { env: { ...env }, file: undefined };
  const fromFile = parseEnv(readFileSync(file, "utf8"));
  return { env: { ...fromFile, ...env }, file };
}
