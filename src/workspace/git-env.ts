// The environment every git the bot runs gets: minimal, no prompts, no system or global
// configuration, and a fixed set of configuration that no repository (nor a test that
// wrote to one) can override, so git never runs a program the repository chose: no hooks,
// no fsmonitor, no editor, pager, ssh command or credential helper.

/**
 * Command-line scope (GIT_CONFIG_COUNT) outranks every file git reads, so these hold
 * whatever a repository's config, a worktree's config or an include says.
 */
export const SAFE_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["core.hooksPath", "/dev/null"],
  ["core.fsmonitor", "false"],
  ["core.sshCommand", "false"],
  ["core.pager", "cat"],
  ["core.editor", "false"],
  ["sequence.editor", "false"],
  ["core.askPass", "false"],
  ["credential.helper", ""],
  ["core.untrackedCache", "false"],
  ["core.attributesFile", "/dev/null"],
  ["commit.gpgSign", "false"],
  ["tag.gpgSign", "false"],
  ["push.gpgSign", "false"],
  ["submodule.recurse", "false"],
  ["fetch.recurseSubmodules", "false"],
  ["protocol.allow", "never"],
  ["protocol.https.allow", "always"],
  ["protocol.http.allow", "always"],
  ["protocol.file.allow", "always"],
];

export type GitCredentials = { username: string; password: string };

/** Where git works when it is not to discover the repository from the current directory. */
export type GitPlace = {
  /** A private index file (GIT_INDEX_FILE), so a snapshot never touches the worktree's index. */
  indexFile?: string;
  /** The git dir, named rather than discovered: a worktree's `.git` file is not trusted after tests ran there. */
  gitDir?: string;
  /** The work tree that goes with `gitDir`. */
  workTree?: string;
  /** Where git stops looking upward for a repository (GIT_CEILING_DIRECTORIES): a plain folder stays one. */
  ceilingDirectory?: string;
};

/** The environment every git we run gets: minimal, no prompts, no system or global configuration, our fixed configuration on top. */
export function safeGitEnv(options: GitPlace & { credentials?: GitCredentials } = {}): Record<string, string> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: process.env.HOME ?? "/tmp",
    LANG: "C",
    GIT_TERMINAL_PROMPT: "0",
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_ATTR_NOSYSTEM: "1",
    GIT_NO_REPLACE_OBJECTS: "1",
    // Only these transports: no ext::, no ssh commands smuggled in through a URL.
    GIT_ALLOW_PROTOCOL: "https:http:file",
    // A long option must be spelled out: `--upload` is not taken for `--upload-pack`.
    GIT_TEST_DISALLOW_ABBREVIATED_OPTIONS: "true",
  };
  if (options.indexFile) env.GIT_INDEX_FILE = options.indexFile;
  if (options.gitDir) env.GIT_DIR = options.gitDir;
  if (options.workTree) env.GIT_WORK_TREE = options.workTree;
  if (options.ceilingDirectory) env.GIT_CEILING_DIRECTORIES = options.ceilingDirectory;
  const config: Array<readonly [string, string]> = [...SAFE_CONFIG];
  if (options.credentials) {
    // Per-command config through the environment: not on the command line, not on disk.
    const { username, password } = options.credentials;
    config.push([
      "http.extraHeader",
      `Authorization: Basic ${Buffer.from(`${username}:${password}`).toString("base64")}`,
    ]);
  }
  env.GIT_CONFIG_COUNT = String(config.length);
  config.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}
