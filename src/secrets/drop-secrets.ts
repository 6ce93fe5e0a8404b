// The bot reads its secrets once and then removes them from its own environment, so no
// program it starts inherits them by accident (a child spawned without an explicit
// environment, a library that shells out). The values are kept, in memory only, for
// the scrubber that removes them from everything the bot posts or sends.
// (/proc/<pid>/environ keeps the environment the process started with; the sandbox's
// own PID namespace and /proc are what keep tests from reading it.)
import { isSecretVariable } from "./secret-names.ts";

const dropped = new Set<string>();

/** Removes secret-looking variables from `env` (the process's own by default) and returns their names. */
export function dropSecretsFromEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!isSecretVariable(name, value)) continue;
    dropped.add(value);
    delete env[name];
    names.push(name);
  }
  return names;
}

/** The values dropped so far, for the scrubber. */
export function droppedSecrets(): string[] {
  return [...dropped];
}
