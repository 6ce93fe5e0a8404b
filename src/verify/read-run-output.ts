// Reads a file a sandboxed run wrote for us (a JUnit report, a coverage trace): the run
// could have left a symbolic link to a hidden file, a FIFO that never ends, a device, or a
// hard link there instead, or could still be appending to it. Only a regular file with no
// other link, opened without following a link and without blocking, no larger than the
// cap, is read, and never more than the cap from the handle; anything else reads as absent.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export async function readRunOutput(path: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0));
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.nlink > 1 || stat.size > maxBytes) return undefined;
    // What fstat said, no more: a process that outlived the run may still be writing.
    const buffer = Buffer.alloc(stat.size);
    let filled = 0;
    while (filled < buffer.length) {
      const { bytesRead } = await handle.read(buffer, filled, buffer.length - filled, filled);
      if (bytesRead === 0) break;
      filled += bytesRead;
    }
    return buffer.subarray(0, filled).toString("utf8");
  } finally {
    await handle.close();
  }
}
