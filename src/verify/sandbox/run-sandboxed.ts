// Runs an untrusted command: no shell (argv only), an allowlisted environment, stdin
// closed, a read-only host with the bot's secrets hidden and only the workspace
// writable, loopback but no other network unless asked, and limits on processes, disk,
// file size, CPU and wall time, each named in the result when it stops the run. The
// output kept is capped so a flood cannot grow our memory.
import { existsSync } from "node:fs";
import { execa } from "execa";
import type { Isolation, RunLimit, RunResult } from "../test-report.ts";
import { bwrapArgv } from "./bwrap-argv.ts";
import { detectIsolation } from "./detect-isolation.ts";
import { DEFAULT_FILE_CAP, watchDisk } from "./disk-watch.ts";
import { registerSandbox } from "./live-sandboxes.ts";
import { createProcessLimit, type ProcessLimit } from "./process-limit.ts";
import { resolveCommand } from "./resolve-command.ts";
import { DEFAULT_TMP_BYTES, sandboxLayout } from "./sandbox-layout.ts";
import { sandboxEnv } from "./sandbox-env.ts";
import { unshareArgv } from "./unshare-argv.ts";
import { makeTempDir, removeTempDir } from "../../workspace/temp-dirs.ts";

export type SandboxLimits = {
  /** Bytes one file may reach (RLIMIT_FSIZE; default 256 MiB). */
  fileSizeBytes?: number;
  /** CPU seconds per process (RLIMIT_CPU; default the timeout plus a minute). */
  cpuSeconds?: number;
  /** Address space per process: only when set, since V8 and WebAssembly reserve far more virtual memory than they use. */
  addressSpaceBytes?: number;
  /** Memory the whole run may use (a memory cgroup; where none can be made, RLIMIT_AS per process, never below ADDRESS_SPACE_FLOOR). */
  memoryBytes?: number;
  /** Processes alive at once in the run (default 256). */
  processes?: number;
  /** Bytes the run may write to the workspace and its scratch directories (default 1 GiB). */
  diskBytes?: number;
  /** Size of the private /tmp (default 512 MiB). */
  tmpBytes?: number;
};

export type SandboxOptions = {
  cwd: string;
  timeoutMs: number;
  /** Literal variables from the repository config; secrets are never inherited. */
  env?: Record<string, string>;
  /** Directories put in front of PATH (for example the project's node_modules/.bin). */
  pathPrefix?: string[];
  network?: boolean;
  maxOutputBytes?: number;
  /** Paths the run may read but not write (the worktree's `.git` file, the git dir it points to). */
  readOnlyPaths?: string[];
  /** Directories of ours the run writes into besides `cwd` (a report or trace directory). */
  writablePaths?: string[];
  /** Host paths to hide besides the bot's own (the repository cache with other jobs' worktrees). */
  hiddenPaths?: string[];
  limits?: SandboxLimits;
  signal?: AbortSignal;
  /** The bot's own CommonJS files (under its resources/) each node process of the run loads first (NODE_OPTIONS --require). */
  nodePreload?: string[];
};

type ResolvedLimits = SandboxLimits & { fileSizeBytes: number; processes: number; diskBytes: number };

export const DEFAULT_LIMITS = { fileSizeBytes: 256 * 1024 ** 2, processes: 256, diskBytes: 1024 ** 3 };
/** V8 reserves about 1.2 GiB of address space before it allocates anything: an RLIMIT_AS below this stops every node at start. */
export const ADDRESS_SPACE_FLOOR = 2 * 1024 ** 3;
const DEFAULT_OUTPUT_CAP = 2 * 1024 * 1024;
const KILL_GRACE_MS = 2000;
/** After the command exits, how long output may still drain before we stop reading. */
const DRAIN_MS = 2000;

export async function runSandboxed(argv: readonly string[], options: SandboxOptions): Promise<RunResult> {
  const [command] = argv;
  if (!command) throw new Error("runSandboxed needs a command");
  const choice = await detectIsolation();
  if ("refused" in choice) return failedToStart([...argv], "none", choice.refused);
  const { isolation } = choice;
  const home = await makeTempDir("autogen-home-");
  const stage = isolation === "unshare" ? await makeTempDir("autogen-root-") : undefined;
  const limits: ResolvedLimits = { ...DEFAULT_LIMITS, ...options.limits };
  const processLimit =
    isolation === "none"
      ? undefined
      : await createProcessLimit({ processes: limits.processes, memoryBytes: limits.memoryBytes });
  try {
    const env = sandboxEnv({
      home,
      extra: options.env ?? {},
      pathPrefix: options.pathPrefix ?? [],
      nodePreload: options.nodePreload,
    });
    if (!resolveCommand(command, env.PATH ?? "", options.cwd))
      return failedToStart([...argv], isolation, `command not found: ${command} (searched PATH=${env.PATH ?? ""})`);
    const writable = [home, ...(options.writablePaths ?? [])];
    // Without a memory cgroup the memory limit falls back to an address-space limit per process.
    const memoryRlimit = limits.memoryBytes !== undefined && isolation !== "none" && !processLimit?.memory;
    const prlimit = prlimitArgv(
      memoryRlimit ? { ...limits, addressSpaceBytes: Math.max(limits.memoryBytes ?? 0, ADDRESS_SPACE_FLOOR) } : limits,
      options.timeoutMs,
    );
    const layout = sandboxLayout({
      workspace: options.cwd,
      writable,
      readOnly: options.readOnlyPaths ?? [],
      hidden: options.hiddenPaths ?? [],
      path: process.env.PATH ?? "",
      tmpBytes: limits.tmpBytes ?? DEFAULT_TMP_BYTES,
    });
    const inner = [...prlimit, ...argv];
    const network = options.network ?? false;
    let wrapped =
      isolation === "bwrap"
        ? bwrapArgv(layout, { cwd: options.cwd, network }, inner)
        : isolation === "unshare"
          ? unshareArgv(layout, { cwd: options.cwd, network, stage: stage as string }, inner)
          : inner;
    if (processLimit) wrapped = processLimit.enter(wrapped);
    return await spawnCapped(
      wrapped,
      [...argv],
      isolation,
      env,
      options,
      limits,
      [options.cwd, ...writable],
      processLimit,
      memoryRlimit,
    );
  } finally {
    await processLimit?.killAll();
    await processLimit?.remove();
    await removeTempDir(home);
    if (stage) await removeTempDir(stage).catch(() => undefined);
  }
}

function prlimitArgv(limits: ResolvedLimits, timeoutMs: number): string[] {
  const cpu = limits.cpuSeconds ?? Math.ceil(timeoutMs / 1000) + 60;
  return [
    "prlimit",
    `--fsize=${limits.fileSizeBytes}`,
    `--cpu=${cpu}`,
    // Holds for a non-root bot (the kernel exempts root; the cgroup covers that case).
    `--nproc=${limits.processes}`,
    "--core=0",
    ...(limits.addressSpaceBytes ? [`--as=${limits.addressSpaceBytes}`] : []),
    "--",
  ];
}

function failedToStart(argv: string[], isolation: Isolation, spawnError: string): RunResult {
  return {
    argv,
    exitCode: null,
    signal: null,
    timedOut: false,
    durationMs: 0,
    output: "",
    outputBytes: 0,
    outputTruncated: false,
    isolation,
    spawnError,
  };
}

function spawnCapped(
  wrapped: string[],
  argv: string[],
  isolation: Isolation,
  env: Record<string, string>,
  options: SandboxOptions,
  limits: ResolvedLimits,
  watched: string[],
  processLimit: ProcessLimit | undefined,
  memoryRlimit: boolean,
): Promise<RunResult> {
  const cap = options.maxOutputBytes ?? DEFAULT_OUTPUT_CAP;
  const started = performance.now();
  return new Promise((resolve) => {
    const [file, ...args] = wrapped as [string, ...string[]];
    // detached: a new session and process group, so the whole group can be killed at once.
    // execa signals only the group's leader (on cancel, and SIGKILL after the grace), and
    // its exit cleanup skips a detached child: the group kills and the live-sandbox
    // registry below cover both.
    const child = execa(file, args, {
      cwd: existsSync(options.cwd) ? options.cwd : "/",
      env,
      extendEnv: false,
      stdin: "ignore",
      buffer: false,
      stripFinalNewline: false,
      detached: true,
      shell: false,
      reject: false,
      forceKillAfterDelay: KILL_GRACE_MS,
      ...(options.signal ? { cancelSignal: options.signal } : {}),
    });
    const chunks: Buffer[] = [];
    let kept = 0;
    let total = 0;
    let timedOut = false;
    let limit: RunLimit | undefined;
    const onData = (chunk: Buffer) => {
      total += chunk.length;
      if (kept < cap) {
        const part = chunk.subarray(0, cap - kept);
        chunks.push(part);
        kept += part.length;
      }
    };
    child.stdout?.on("data", onData);
    child.stderr?.on("data", onData);
    const killGroup = (signal: NodeJS.Signals) => {
      if (child.pid === undefined) return;
      try {
        process.kill(-child.pid, signal);
      } catch {
        // the group is already gone
      }
    };
    const unregister = registerSandbox(() => {
      killGroup("SIGKILL");
      void processLimit?.killAll();
    });
    const stopFor = (reason: RunLimit) => {
      limit ??= reason;
      killGroup("SIGKILL");
      void processLimit?.killAll();
    };
    const seconds = Math.round(options.timeoutMs / 100) / 10;
    const timer = setTimeout(() => {
      timedOut = true;
      limit ??= {
        name: "wall-time",
        message: `timed out after ${seconds} s (the test run's time limit, test.timeoutMinutes)`,
      };
      killGroup("SIGTERM");
      setTimeout(() => killGroup("SIGKILL"), KILL_GRACE_MS).unref();
    }, options.timeoutMs);
    const disk =
      isolation === "none"
        ? undefined
        : watchDisk(
            watched,
            limits.diskBytes,
            (bytes) =>
              stopFor({
                name: "disk",
                message: `stopped: wrote ${mb(bytes)} to the workspace, over the limit of ${mb(limits.diskBytes)}`,
              }),
            (files) =>
              stopFor({
                name: "disk",
                message: `stopped: created ${files} files, over the limit of ${DEFAULT_FILE_CAP} files`,
              }),
          );
    // execa's cancelSignal ends the leader; the rest of the group goes here.
    const onAbort = () => stopFor({ name: "cancelled", message: "stopped on request" });
    options.signal?.addEventListener("abort", onAbort, { once: true });
    let settled = false;
    const settle = (code: number | null, signal: NodeJS.Signals | null, spawnError: string | undefined) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      disk?.stop();
      unregister();
      options.signal?.removeEventListener("abort", onAbort);
      // Children that outlive the main process (forks, daemons) go with the group.
      killGroup("SIGKILL");
      child.stdout?.destroy();
      child.stderr?.destroy();
      const output = Buffer.concat(chunks).toString("utf8");
      void (async () => {
        const refusals = (await processLimit?.refusals()) ?? 0;
        const oomKills = (await processLimit?.oomKills()) ?? 0;
        const kernel = kernelLimit(code, signal, output, { refusals, oomKills, memoryRlimit }, limits);
        // Every limit the run reached is named, the one that stopped it first.
        if (limit && kernel && kernel.name !== limit.name)
          limit = { ...limit, message: `${limit.message}; it also ${kernel.message.replace(/^stopped: /, "")}` };
        limit ??= kernel;
        resolve({
          argv,
          exitCode: code,
          signal,
          timedOut,
          durationMs: Math.round(performance.now() - started),
          output,
          outputBytes: total,
          outputTruncated: total > kept,
          isolation,
          spawnError,
          ...(limit ? { limit } : {}),
        });
      })();
    };
    // The result once the streams have closed; a spawn failure (ENOENT, EACCES) has no exit.
    void child.then((result) => {
      const spawnError =
        result.failed && result.exitCode === undefined && result.signal === undefined
          ? result.cause instanceof Error
            ? result.cause.message
            : result.shortMessage
          : undefined;
      settle(result.exitCode ?? null, (result.signal as NodeJS.Signals | undefined) ?? null, spawnError);
    });
    // A process that escaped the group may hold our pipes open: do not wait for it.
    child.nodeChildProcess.on("exit", (code, signal) => {
      killGroup("SIGKILL");
      setTimeout(() => settle(code, signal, undefined), DRAIN_MS).unref();
    });
  });
}

/** The limits the kernel enforces show as a signal, an exit code of 128 + signal, or an error text. */
function kernelLimit(
  code: number | null,
  signal: NodeJS.Signals | null,
  output: string,
  { refusals, oomKills, memoryRlimit }: { refusals: number; oomKills: number; memoryRlimit: boolean },
  limits: ResolvedLimits,
): RunLimit | undefined {
  if (oomKills > 0) return { name: "memory", message: memoryLimitMessage(limits.memoryBytes ?? 0) };
  if (memoryRlimit && OUT_OF_MEMORY.test(output.slice(-4000)))
    return {
      name: "memory",
      message: memoryLimitMessage(
        Math.max(limits.memoryBytes ?? 0, ADDRESS_SPACE_FLOOR),
        " (address space per process: this host gives the bot no memory cgroup)",
      ),
    };
  if (refusals > 0)
    return {
      name: "processes",
      message: `hit the process limit (${limits.processes} processes at once): ${refusals} process${refusals === 1 ? " was" : "es were"} refused`,
    };
  if (signal === "SIGXCPU" || code === 128 + 24)
    return {
      name: "cpu-time",
      message: `stopped: a process used more than its CPU time limit of ${limits.cpuSeconds ?? "the timeout plus 60"} s`,
    };
  if (signal === "SIGXFSZ" || code === 128 + 25 || /File too large|\[Errno 27\]|EFBIG/.test(output.slice(-4000))) {
    return { name: "file-size", message: `stopped: a file grew past the size limit of ${mb(limits.fileSizeBytes)}` };
  }
  return undefined;
}

/** Python's MemoryError, V8's and libc's words for a refused allocation: how RLIMIT_AS shows. */
const OUT_OF_MEMORY =
  /MemoryError|[Cc]annot allocate memory|[Ff]ailed to allocate memory|ENOMEM|out of memory|bad_alloc|Failed to reserve virtual memory/;

export function memoryLimitMessage(bytes: number, how = ""): string {
  const size =
    bytes % 1024 ** 3 === 0 ? `${bytes / 1024 ** 3} GiB` : `${Math.round((bytes / 1024 ** 2) * 10) / 10} MiB`;
  return `stopped: used more than ${size}, the test run's memory limit (test.limits.memoryMegabytes)${how}`;
}

function mb(bytes: number): string {
  return `${Math.round((bytes / 1024 ** 2) * 10) / 10} MB`;
}
