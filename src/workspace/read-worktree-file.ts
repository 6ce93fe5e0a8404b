// The one way the bot reads a file of a worktree on the host. The worktree is the
// repository's, and its tests ran in it: any file may have become a link to the bot's own
// environment (/proc/self/environ), a host file, a device (/dev/zero), a FIFO that never
// answers, or a hard link to a file elsewhere. A read here refuses all of those on the
// handle it reads from (so a swap between check and open is caught) and is bounded in size.
import { closeSync, constants, fstatSync, openSync, readlinkSync, readSync, realpathSync, type Stats } from "node:fs";
import { open } from "node:fs/promises";
import { sep } from "node:path";
import { safeRepoPath, UnsafePathError } from "./safe-path.ts";

/** The default bound: larger than any source file worth showing or editing, far below what hurts memory. */
export const WORKTREE_READ_LIMIT = 8 * 1024 * 1024;

/** The bound for a file shown to the model as context: no source file worth reading is larger. */
export const CONTEXT_READ_LIMIT = 1024 * 1024;

export type WorktreeReadOptions = {
  /** At most this many bytes are read (default WORKTREE_READ_LIMIT). */
  maxBytes?: number;
  /** Past maxBytes: "refuse" (an error, the default) or "truncate" (the first maxBytes). */
  overLimit?: "refuse" | "truncate";
};

// O_NOFOLLOW: a link at the end is refused by the open itself. O_NONBLOCK: a FIFO planted
// after the check opens at once instead of waiting for a writer; fstat then refuses it.
const FLAGS = constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);

/**
 * Where the open handle really is: on Linux the kernel's own name for the descriptor
 * (/proc/self/fd/N), which a parent directory swapped back after the open cannot change;
 * elsewhere the real path of the name as it is now.
 */
function handlePath(fd: number, full: string): string {
  try {
    return readlinkSync(`/proc/self/fd/${fd}`);
  } catch {
    return realpathSync(full);
  }
}

function checkHandle(root: string, path: string, full: string, fd: number, stat: Stats): void {
  if (!stat.isFile()) throw new UnsafePathError(path, "it is not a regular file (a device, FIFO, socket or directory)");
  if (stat.nlink > 1) throw new UnsafePathError(path, "it has other hard links, which may be outside the repository");
  // A parent directory swapped for a link after safeRepoPath looked: where the handle is tells.
  const realRoot = realpathSync(root);
  const realFull = handlePath(fd, full);
  if (!realFull.startsWith(realRoot.endsWith(sep) ? realRoot : realRoot + sep))
    throw new UnsafePathError(path, "it resolves outside the repository");
}

/** An open refused by the kernel for a reason the caller should see as a refusal, not a crash. */
function refusal(path: string, error: unknown): unknown {
  const code = (error as NodeJS.ErrnoException).code;
  if (code === "ENOENT" || code === "ENOTDIR") return new UnsafePathError(path, "no such file in the repository");
  if (code === "ELOOP") return new UnsafePathError(path, "it is a symbolic link");
  // A Unix socket cannot be opened at all (ENXIO): refused as what it is, not as a crash.
  if (code === "ENXIO") return new UnsafePathError(path, "it is not a regular file (a socket)");
  return error;
}

function limitOf(path: string, size: number, options: WorktreeReadOptions): number {
  const max = options.maxBytes ?? WORKTREE_READ_LIMIT;
  if (size > max && options.overLimit !== "truncate")
    throw new UnsafePathError(path, `it is larger than ${max} bytes (${size})`);
  return Math.min(size, max);
}

/** The bytes of a repository file, read safely (see the file's header). Throws UnsafePathError or the fs error. */
export async function readWorktreeBytes(
  root: string,
  path: string,
  options: WorktreeReadOptions = {},
): Promise<Buffer> {
  const full = safeRepoPath(root, path);
  const handle = await open(full, FLAGS).catch((error: unknown) => {
    throw refusal(path, error);
  });
  try {
    const stat = await handle.stat();
    checkHandle(root, path, full, handle.fd, stat);
    const want = limitOf(path, stat.size, options);
    const buffer = Buffer.alloc(want);
    let filled = 0;
    // The size is what fstat said; a file that grows meanwhile is read no further than that.
    while (filled < want) {
      const { bytesRead } = await handle.read(buffer, filled, want - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled);
  } finally {
    await handle.close();
  }
}

/** The text of a repository file, read safely. */
export async function readWorktreeText(root: string, path: string, options: WorktreeReadOptions = {}): Promise<string> {
  return (await readWorktreeBytes(root, path, options)).toString("utf8");
}

/** The text, or undefined when the file is missing or refused (for context that may do without it). */
export async function tryReadWorktreeText(
  root: string,
  path: string,
  options: WorktreeReadOptions = {},
): Promise<string | undefined> {
  return readWorktreeText(root, path, options).catch(() => undefined);
}

/** The synchronous form of readWorktreeBytes, for the few callers that cannot wait. */
export function readWorktreeBytesSync(root: string, path: string, options: WorktreeReadOptions = {}): Buffer {
  const full = safeRepoPath(root, path);
  let fd: number;
  try {
    fd = openSync(full, FLAGS);
  } catch (error) {
    throw refusal(path, error);
  }
  try {
    const stat = fstatSync(fd);
    checkHandle(root, path, full, fd, stat);
    const want = limitOf(path, stat.size, options);
    const buffer = Buffer.alloc(want);
    let filled = 0;
    while (filled < want) {
      const read = readSync(fd, buffer, filled, want - filled, filled);
      if (read === 0) break;
      filled += read;
    }
    return buffer.subarray(0, filled);
  } finally {
    closeSync(fd);
  }
}

export function readWorktreeTextSync(root: string, path: string, options: WorktreeReadOptions = {}): string {
  return readWorktreeBytesSync(root, path, options).toString("utf8");
}

/** The text, or undefined when missing or refused. */
export function tryReadWorktreeTextSync(
  root: string,
  path: string,
  options: WorktreeReadOptions = {},
): string | undefined {
  try {
    return readWorktreeTextSync(root, path, options);
  } catch {
    return undefined;
  }
}
