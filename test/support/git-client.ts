// simple-git for tests that build repositories (the bot itself runs git only through
// src/workspace/run-git.ts), with the bot's safe environment so a test's own git is no
// easier to subvert than the bot's.
import { simpleGit, type SimpleGit } from "simple-git";
import { safeGitEnv, type GitPlace } from "../../src/workspace/git-env.ts";

export function git(baseDir: string, options: GitPlace = {}): SimpleGit {
  const env = safeGitEnv(options);
  return simpleGit({
    baseDir,
    timeout: { block: 60_000 },
    // The keys below are set to our own constants (safeGitEnv), which switch the programs off.
    unsafe: {
      allowUnsafeConfigEnvCount: true,
      allowUnsafeConfigPaths: true,
      allowUnsafeHooksPath: true,
      allowUnsafeFsMonitor: true,
      allowUnsafeSshCommand: true,
      allowUnsafePager: true,
      allowUnsafeEditor: true,
      allowUnsafeAskPass: true,
      allowUnsafeCredentialHelper: true,
      allowUnsafeProtocolOverride: true,
    },
    allowEnvironment: Object.keys(env).filter((k) => k.startsWith("GIT_")),
  }).env(env);
}
