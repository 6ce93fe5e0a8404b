// The one way the bot runs git. Every call gets the safe environment of git-env.ts and
// nothing of the host's, no standard input unless given, a timeout and an abort signal; its arguments
// and environment pass simple-git's check for options that run programs (--upload-pack,
// -c core.sshCommand=..., include.path, url.<x>.insteadOf, ...) first, as they did when
// the calls went through simple-git. Outside input (a path, a ref, a URL) is only ever
// passed after `--` or `--end-of-options`, or checked by the caller before.
//
// Why not simple-git itself: the diff of two texts is needed synchronously, and a blob's
// bytes (uploaded to GitHub as they are) must not pass through a UTF-8 string.
import { vulnerabilityCheck, type VulnerabilityCategory } from "@simple-git/argv-parser";
import { execa, execaSync, type Result, type SyncResult } from "execa";
import { safeGitEnv, type GitCredentials, type GitPlace } from "./git-env.ts";

export type RunGitOptions = GitPlace & {
  /** The directory git starts in (default: this process's). */
  cwd?: string;
  /** Handed to this command only, through its environment: never in argv, never on disk. */
  credentials?: GitCredentials;
  /** Total time allowed (default 60 s; 0: none, for a caller whose own signal bounds the call). */
  timeoutMs?: number;
  signal?: AbortSignal;
  /** What git reads on its standard input (a patch for `apply -`); none otherwise. */
  input?: string;
  /** Exit codes that are answers rather than failures (`diff --no-index` exits 1 when the files differ). */
  okExitCodes?: readonly number[];
};

/** A git command that failed: the message is what git wrote on its standard error. */
export class GitCommandError extends Error {
  readonly exitCode: number | undefined;
  constructor(message: string, exitCode: number | undefined) {
    super(message);
    this.name = "GitCommandError";
    this.exitCode = exitCode;
  }
}

/**
 * What the environment carries on purpose: our own constants (hooks, fsmonitor, pager, ...
 * switched off, the protocol allow-list, the credential header) and the named git dir,
 * work tree and index. Everything else simple-git's check finds is refused.
 */
const OURS: ReadonlySet<VulnerabilityCategory> = new Set<VulnerabilityCategory>([
  "allowUnsafeConfigEnvCount",
  "allowUnsafeConfigPaths",
  "allowUnsafeHooksPath",
  "allowUnsafeFsMonitor",
  "allowUnsafeSshCommand",
  "allowUnsafePager",
  "allowUnsafeEditor",
  "allowUnsafeAskPass",
  "allowUnsafeCredentialHelper",
  "allowUnsafeProtocolOverride",
]);

const MAX_OUTPUT = 1024 ** 3;

function prepare(args: readonly string[], options: RunGitOptions): Record<string, string> {
  const env = safeGitEnv(options);
  const refused = vulnerabilityCheck(args, env).find((v) => !OURS.has(v.category));
  if (refused) throw new GitCommandError(`refusing to run git ${args[0] ?? ""}: ${refused.message}`, undefined);
  return env;
}

type Stopped = "timeout" | "cancel" | undefined;

function settle<T>(args: readonly string[], options: RunGitOptions, result: Result | SyncResult, stopped: Stopped): T {
  const command = `git ${args[0] ?? ""}`;
  if (stopped === "timeout" || result.timedOut)
    throw new GitCommandError(
      `${command} timed out after ${Math.round((options.timeoutMs ?? 60_000) / 1000)} s`,
      undefined,
    );
  if (stopped === "cancel") throw new GitCommandError(`${command} was cancelled`, undefined);
  if (result.exitCode !== undefined && (options.okExitCodes ?? [0]).includes(result.exitCode))
    return result.stdout as T;
  const stderr = (
    typeof result.stderr === "string" ? result.stderr : Buffer.from(result.stderr as Uint8Array).toString("utf8")
  ).trim();
  // No command line in the message: it may name a URL; the credentials are never in it.
  if (result.exitCode === undefined)
    throw new GitCommandError(`${command} could not run: ${result.originalMessage}`, undefined);
  throw new GitCommandError(stderr || `${command} exited with code ${result.exitCode}`, result.exitCode);
}

function execOptions(options: RunGitOptions, env: Record<string, string>) {
  return {
    ...(options.cwd ? { cwd: options.cwd } : {}),
    env,
    extendEnv: false,
    ...(options.input === undefined ? { stdin: "ignore" as const } : { input: options.input }),
    stripFinalNewline: false,
    maxBuffer: MAX_OUTPUT,
    reject: false,
  } as const;
}

async function runAsync<T>(args: readonly string[], options: RunGitOptions, encoding: "utf8" | "buffer"): Promise<T> {
  const env = prepare(args, options);
  const subprocess = execa("git", args, { ...execOptions(options, env), encoding });
  let stopped: Stopped;
  // git is stopped (SIGTERM, then SIGKILL after 5 s) and its pipes closed at once: a helper
  // it started (git-remote-https waiting on a silent server) may hold them open for long.
  const stop = (why: Exclude<Stopped, undefined>) => {
    if (stopped) return;
    stopped = why;
    subprocess.kill();
    subprocess.stdout.destroy();
    subprocess.stderr.destroy();
  };
  const timeoutMs = options.timeoutMs ?? 60_000;
  const timer = timeoutMs > 0 ? setTimeout(() => stop("timeout"), timeoutMs) : undefined;
  const onAbort = () => stop("cancel");
  if (options.signal?.aborted) onAbort();
  options.signal?.addEventListener("abort", onAbort, { once: true });
  try {
    return settle<T>(args, options, await subprocess, stopped);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener("abort", onAbort);
  }
}

/** Runs git and returns its standard output as text. */
export function runGit(args: readonly string[], options: RunGitOptions = {}): Promise<string> {
  return runAsync<string>(args, options, "utf8");
}

/** Runs git and returns its standard output as bytes (a blob as it is stored). */
export async function runGitBytes(args: readonly string[], options: RunGitOptions = {}): Promise<Buffer> {
  return Buffer.from(await runAsync<Uint8Array>(args, options, "buffer"));
}

/** Runs git to the end before returning (for callers that cannot wait: the diff of two texts). */
export function runGitSync(
  args: readonly string[],
  options: Omit<RunGitOptions, "signal"> = {},
): { exitCode: number; stdout: string } {
  const env = prepare(args, options);
  const timeout = options.timeoutMs ?? 60_000;
  const result = execaSync("git", args, { ...execOptions(options, env), ...(timeout > 0 ? { timeout } : {}) });
  const stdout = settle<string>(args, options, result, undefined);
  return { exitCode: result.exitCode ?? 0, stdout };
}
