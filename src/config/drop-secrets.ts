// The bot reads its secrets once and then removes them from its own environment, so no
// program it starts inherits them by accident (a child spawned without an explicit
// environment, a library that shells out). The values are kept, in memory only, for
// the scrubber that removes them from everything the bot posts or sends.
// (/proc/<pid>/environ keeps the environment the process started with; the sandbox's
// own PID namespace and /proc are what keep tests from reading it.)

const SECRET_NAME = /KEY|TOKEN|SECRET|PASSWORD|PRIVATE|CREDENTIAL/i;
/** Names that point at secrets rather than hold them: the sandbox needs them to hide those files. */
const LOCATION = /_(PATH|FILE|DIR)$/i;

const dropped = new Set<string>();

/** Removes secret-looking variables from `env` (the process's own by default) and returns their names. */
export function dropSecretsFromEnvironment(env: NodeJS.ProcessEnv = process.env): string[] {
  const names: string[] = [];
  for (const [name, value] of Object.entries(env)) {
    if (!value || value.length < 8 || !SECRET_NAME.test(name) || LOCATION.test(name)) continue;
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
