// The environment a child process gets: an allowlist, never the bot's own. Secrets
// (tokens, keys, the webhook secret) cannot leak because nothing is inherited by default.
import { delimiter } from "node:path";
const PASSED_THROUGH = ["PATH", "LANG", "LC_ALL", "TZ", "TERM"] as const;

import { FORBIDDEN_ENV_NAMES } from "../../config/forbidden-env-names.ts";

export { FORBIDDEN_ENV_NAMES };

export function sandboxEnv(options: {
  home: string;
  parent?: NodeJS.ProcessEnv;
  extra?: Record<string, string>;
  pathPrefix?: string[];
  /** The bot's own files each node process loads first (NODE_OPTIONS --require): never the repository's, which cannot set NODE_OPTIONS. */
  nodePreload?: string[];
}): Record<string, string> {
  const parent = options.parent ?? process.env;
  const env: Record<string, string> = {};
  for (const name of PASSED_THROUGH) {
    const value = parent[name];
    if (value !== undefined) env[name] = value;
  }
  if (options.pathPrefix?.length) env.PATH = [...options.pathPrefix, env.PATH ?? "/usr/bin:/bin"].join(delimiter);
  env.PATH ??= "/usr/local/bin:/usr/bin:/bin";
  env.LANG ??= "C.UTF-8";
  env.HOME = options.home;
  env.TMPDIR = options.home;
  env.CI = "true";
  env.NO_COLOR = "1";
  env.PYTHONDONTWRITEBYTECODE = "1";
  env.GIT_TERMINAL_PROMPT = "0";
  for (const [name, value] of Object.entries(options.extra ?? {})) {
    if (FORBIDDEN_ENV_NAMES.test(name)) throw new Error(`environment variable ${name} cannot be set for test runs`);
    env[name] = value;
  }
  if (options.nodePreload?.length)
    env.NODE_OPTIONS = options.nodePreload.map((file) => `--require=${JSON.stringify(file)}`).join(" ");
  return env;
}
