// Reads a file a sandboxed run wrote for us (a JUnit report, a coverage trace): the run
// could have left a symbolic link to a hidden file, a FIFO that never ends, or a
// device there instead. Only a regular file, opened without following a link and
// without blocking, and no larger than the cap, is read; anything else reads as absent.
import { constants } from "node:fs";
import { open } from "node:fs/promises";

export async function readRunOutput(path: string, maxBytes: number): Promise<string | undefined> {
  let handle;
  try {
    handle = await open(path, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch {
    return undefined;
  }
  try {
    const stat = await handle.stat();
    if (!stat.isFile() || stat.size > maxBytes) return undefined;
    return await handle.readFile("utf8");
  } finally {
    await handle.close();
  }
}
