// Runs an untrusted command: no shell (argv only), an allowlisted environment, stdin
// closed, network off unless asked, resource limits, a wall-clock timeout that kills the
// whole process group, and a cap on captured output so a flood cannot grow our memory.
import { spawn } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Isolation, RunResult } from "../test-report.ts";
import { detectIsolation } from "./detect-isolation.ts";
import { resolveCommand } from "./resolve-command.ts";
import { sandboxEnv } from "./sandbox-env.ts";

export type SandboxOptions = {
  cwd: string;
  timeoutMs: number;
  /** Literal variables from the repository config; secrets are never inherited. */
  env?: Record<string, string>;
  /** Directories put in front of PATH (for example the project's node_modules/.bin). */
  pathPrefix?: string[];
  network?: boolean;
  maxOutputBytes?: number;
  /** Paths made read-only to the child where the isolation allows it (e.g. `.git`). */
  readOnlyPaths?: string[];
  /**
   * prlimit limits. File size (default 1 GiB) and CPU seconds (default: the timeout plus a
   * minute) always apply; address space only when set, since V8 and WebAssembly reserve
   * far more virtual memory than they use and a default cap would break JS test runners.
   */
  limits?: { addressSpaceBytes?: number; fileSizeBytes?: number; cpuSeconds?: number };
  signal?: AbortSignal;
};

const DEFAULT_OUTPUT_CAP = 2 * 1024 * 1024;
const KILL_GRACE_MS = 2000;
/** After the command exits, how long output may still drain before we stop reading. */
const DRAIN_MS = 2000;

export async function runSandboxed(argv: readonly string[], options: SandboxOptions): Promise<RunResult> {
  const [command] = argv;
  if (!command) throw new Error("runSandboxed needs a command");
  const isolation = await detectIsolation();
  const home = await mkdtemp(join(tmpdir(), "autogen-home-"));
  try {
    const env = sandboxEnv({ home, extra: options.env ?? {}, pathPrefix: options.pathPrefix ?? [] });
    if (!resolveCommand(command, env.PATH ?? "", options.cwd)) return notFound([...argv], isolation, env.PATH ?? "");
    const wrapped = wrap([...argv], isolation, options);
    return await spawnCapped(wrapped, [...argv], isolation, env, options);
  } finally {
    await rm(home, { recursive: true, force: true });
  }
}

function notFound(argv: string[], isolation: Isolation, path: string): RunResult {
  const spawnError = `command not found: ${argv[0]} (searched PATH=${path})`;
  return { argv, exitCode: null, signal: null, timedOut: false, durationMs: 0, output: "", outputBytes: 0, outputTruncated: false, isolation, spawnError };
}

function wrap(argv: string[], isolation: Isolation, options: SandboxOptions): string[] {
  const limits = options.limits ?? {};
  const cpu = limits.cpuSeconds ?? Math.ceil(options.timeoutMs / 1000) + 60;
  const prlimit = ["prlimit", `--fsize=${limits.fileSizeBytes ?? 1024 ** 3}`, `--cpu=${cpu}`, ...(limits.addressSpaceBytes ? [`--as=${limits.addressSpaceBytes}`] : []), "--"];
  if (isolation === "bwrap") {
    const readOnly = (options.readOnlyPaths ?? []).flatMap((p) => ["--ro-bind-try", p, p]);
    // A new PID namespace: when the command exits, the kernel ends every process it left.
    return ["bwrap", "--dev-bind", "/", "/", ...readOnly, ...(options.network ? [] : ["--unshare-net"]), "--unshare-pid", "--die-with-parent", "--", ...prlimit, ...argv];
  }
  if (isolation === "unshare") return ["unshare", ...(options.network ? [] : ["--net"]), "--pid", "--fork", "--kill-child", "--", ...prlimit, ...argv];
  return [...prlimit, ...argv];
}

function spawnCapped(wrapped: string[], argv: string[], isolation: Isolation, env: Record<string, string>, options: SandboxOptions): Promise<RunResult> {
  const cap = options.maxOutputBytes ?? DEFAULT_OUTPUT_CAP;
  const started = performance.now();
  return new Promise((resolve) => {
    const [file, ...args] = wrapped as [string, ...string[]];
    const child = spawn(file, args, { cwd: options.cwd, env, stdio: ["ignore", "pipe", "pipe"], detached: true, shell: false });
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    let timedOut = false;
    let spawnError: string | undefined;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (kept < cap) {
        const part = chunk.subarray(0, cap - kept);
        chunks.push(part);
        kept += part.length;
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const timer = setTimeout(() => {
      timedOut = true;
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
    }, options.timeoutMs);
    const onAbort = () => killGroup("SIGKILL");
    options.signal?.addEventListener("abort", onAbort, { once: true });
    child.on("error", (error) => {
      spawnError = error.message;
    });
    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      options.signal?.removeEventListener("abort", onAbort);
      // Children that outlive the main process (forks, daemons) go with the group.
      killGroup("SIGKILL");
      child.stdout.destroy();
      child.stderr.destroy();
      resolve({
        argv,
        exitCode: code,
        signal,
        timedOut,
        durationMs: Math.round(performance.now() - started),
        output: Buffer.concat(chunks).toString("utf8"),
        outputBytes: total,
        outputTruncated: total > kept,
        isolation,
        spawnError,
      });
    };
    child.on("close", settle);
    // A process that escaped the group may hold our pipes open: do not wait for it.
    child.on("exit", (code, signal) => {
      killGroup("SIGKILL");
      setTimeout(() => settle(code, signal), DRAIN_MS).unref();
    });
  });
}
