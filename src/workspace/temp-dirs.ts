// The bot's directories under the host's temporary folder (tmpdir(), $TMPDIR): each is made
// here and listed until the job that made it removes it. A process that ends another way
// (a signal's exit, an uncaught error, process.exit) removes what the list still holds on
// its way out, so a bot stopped mid-job, or running for weeks, does not fill its host's tmp.
import { mkdtempSync, rmSync } from "node:fs";
import { rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";

/** Each listed directory, with what else its removal at exit undoes (a worktree's registration). */
const live = new Map<string, (() => void) | undefined>();
let hooked = false;

/** Lists `dir` for removal at exit until removeTempDir (or releaseTempDir) takes it off. */
export function holdTempDir(dir: string, atExit?: () => void): string {
  if (!hooked) {
    hooked = true;
    process.on("exit", () => void removeLeftTempDirs());
  }
  live.set(dir, atExit);
  return dir;
}

/**
 * A fresh directory `<tmpdir>/<prefix>XXXXXX`, listed. Made synchronously (one mkdir): an
 * asynchronous mkdtemp still under way when a signal's exit ran made its folder after the
 * exit's removal, unlisted (a SIGTERM during the isolation probe left `autogen-probe-*`).
 */
export async function makeTempDir(prefix: string): Promise<string> {
  return makeTempDirSync(prefix);
}

export function makeTempDirSync(prefix: string): string {
  return holdTempDir(mkdtempSync(join(tmpdir(), prefix)));
}

/** Removes the directory, then takes it off the list (a signal during the removal still finds it listed). */
export async function removeTempDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true });
  live.delete(dir);
}

export function removeTempDirSync(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  live.delete(dir);
}

/** Takes `dir` off the list without removing it: what is in it now belongs to the caller. */
export function releaseTempDir(dir: string): void {
  live.delete(dir);
}

/** The directories listed now (for tests and diagnostics). */
export function liveTempDirs(): string[] {
  return [...live.keys()];
}

/** Removes every listed directory at once, synchronously (it runs in the process's exit handler); the count removed. */
export function removeLeftTempDirs(): number {
  let removed = 0;
  for (const [dir, atExit] of live) {
    try {
      // A sandboxed run killed a moment ago may still be closing files in it.
      rmSync(dir, { recursive: true, force: true, maxRetries: 3, retryDelay: 50 });
      atExit?.();
      removed += 1;
    } catch {
      // Nothing more can be done on the way out.
    }
  }
  live.clear();
  return removed;
}
