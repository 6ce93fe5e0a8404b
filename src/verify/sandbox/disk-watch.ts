// A cap on what one run writes to the directories it may write (the private /tmp is a
// size-capped tmpfs and needs no watch). The kernel has no per-run quota on an ordinary
// directory, so we look: a cheap statfs every interval, and only when the file system
// has filled by more than the cap since the start, a walk that sums the files the run
// created or changed. Over the cap, the run is stopped.
import { lstat, readdir, statfs } from "node:fs/promises";
import { join } from "node:path";

export type DiskWatch = { stop(): void; exceeded: () => number | undefined };

const INTERVAL_MS = 500;

/** Files (inodes) one run may create on the workspace's file system. */
export const DEFAULT_FILE_CAP = 200_000;

export function watchDisk(
  dirs: string[],
  capBytes: number,
  onExceeded: (bytes: number) => void,
  onTooManyFiles: (files: number) => void = () => undefined,
  fileCap = DEFAULT_FILE_CAP,
): DiskWatch {
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
        baseline ??= new Map(
          await Promise.all(dirs.map(async (d): Promise<[string, number]> => [d, await usedBytes(d)])),
        );
        // Inodes, which a flood of empty files uses up without growing the bytes.
        for (const dir of dirs) {
          const files = (await usedInodes(dir)) - (inodeBaseline.get(dir) ?? Infinity);
          if (files > fileCap && !stopped) {
            onTooManyFiles(files);
            return;
          }
        }
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
  const inodeBaseline = new Map<string, number>();
  void Promise.all(dirs.map(async (d) => inodeBaseline.set(d, await usedInodes(d)))).catch(() => undefined);
  // The baseline must be taken before the run writes anything.
  void Promise.all(dirs.map(async (d): Promise<[string, number]> => [d, await usedBytes(d)])).then(
    (entries) => (baseline ??= new Map(entries)),
    () => undefined,
  );
  return {
    stop() {
      stopped = true;
      clearInterval(timer);
    },
    exceeded: () => exceeded,
  };
}

async function usedInodes(dir: string): Promise<number> {
  const s = await statfs(dir);
  return s.files - s.ffree;
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
        // ctime, which a run cannot set back (it can backdate mtime with touch -d).
        if (s && s.ctimeMs >= since - 1000) total += s.blocks * 512;
      }
    }
  }
  return total;
}
