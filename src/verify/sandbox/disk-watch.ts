// A cap on what one run writes to the directories it may write (the private /tmp is a
// size-capped tmpfs and needs no watch). The kernel has no per-run quota on an ordinary
// directory, so we look: a cheap statfs every interval, and only when the file system
// has filled by more than the cap since the start, a walk that sums the files the run
// created or changed. Over the cap, the run is stopped.
import { lstat, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";

export type DiskWatch = { stop(): void; exceeded: () => number | undefined };

const INTERVAL_MS = 500;

export function watchDisk(dirs: string[], capBytes: number, onExceeded: (bytes: number) => void): DiskWatch {
  const started = Date.now();
  let stopped = false;
  let exceeded: number | undefined;
  let baseline: Map<string, number> | undefined;
  let busy = false;
  const timer = setInterval(() => {
    if (busy || stopped) return;
    busy = true;
    void (async () => {
      try {
        baseline ??= new Map(await Promise.all(dirs.map(async (d): Promise<[string, number]> => [d, await usedBytes(d)])));
        let grown = 0;
        for (const dir of dirs) grown = Math.max(grown, (await usedBytes(dir)) - (baseline.get(dir) ?? 0));
        if (grown <= capBytes) return;
        let written = 0;
        for (const dir of dirs) written += await writtenSince(dir, started, capBytes - written);
        if (written > capBytes && !stopped) {
          exceeded = written;
          onExceeded(written);
        }
      } catch {
        // A directory removed under us: nothing to measure.
      } finally {
        busy = false;
      }
    })();
  }, INTERVAL_MS);
  timer.unref();
  // The baseline must be taken before the run writes anything.
  void Promise.all(dirs.map(async (d): Promise<[string, number]> => [d, await usedBytes(d)])).then((entries) => (baseline ??= new Map(entries)), () => undefined);
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    exceeded: () => exceeded,
  };
}

async function usedBytes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return (s.blocks - s.bfree) * s.bsize;
}

/** Bytes in files modified since `since` below `dir`; stops counting once past `limit`. */
async function writtenSince(dir: string, since: number, limit: number): Promise<number> {
  let total = 0;
  const stack = [dir];
  while (stack.length > 0 && total <= limit) {
    const current = stack.pop() as string;
    let entries;
    try {
      entries = await readdir(current, { withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      const path = join(current, entry.name);
      if (entry.isDirectory()) {
        stack.push(path);
      } else if (entry.isFile()) {
        const s = await lstat(path).catch(() => undefined);
        if (s && s.mtimeMs >= since - 1000) total += s.blocks * 512;
      }
    }
  }
  return total;
}
