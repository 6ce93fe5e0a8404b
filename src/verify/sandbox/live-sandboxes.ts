// Every sandboxed run still alive, so that when the bot itself is stopped (Ctrl-C,
// SIGTERM from a supervisor or `timeout`) nothing it started outlives it. bwrap dies
// with its parent and takes its PID namespace along; this covers the moment before
// that, the unshare fallback, and a run that ignores SIGTERM.
type Killer = () => void;

const live = new Set<Killer>();
let installed = false;

export function registerSandbox(kill: Killer): () => void {
  live.add(kill);
  return () => live.delete(kill);
}

export function killAllSandboxes(): number {
  const count = live.size;
  for (const kill of live) {
    try {
      kill();
    } catch {
      // already gone
    }
  }
  live.clear();
  return count;
}

/**
 * On SIGINT/SIGTERM/SIGHUP: kill every live sandbox, then let `onSignal` finish (the
 * server closes, the CLI exits 130/143). Without one, exit with the shell's code.
 */
export function installSandboxCleanup(onSignal?: (signal: NodeJS.Signals) => void): void {
  if (installed) return;
  installed = true;
  process.on("exit", () => void killAllSandboxes());
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.on(signal, () => {
      killAllSandboxes();
      if (onSignal) onSignal(signal);
      else process.exit(128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1 } as const)[signal]);
    });
  }
}
