// Parallel validation under the worst scheduling a busy machine can give: a read of the
// workspace's source that overlaps another read of it is held back until a candidate has
// been written there (slot 0 is the workspace), so the race that made 3 of 4 loaded runs
// find no fix happens every time if the code allows it.
import type * as FsPromises from "node:fs/promises";
import { join } from "node:path";
import { describe, expect, it, vi } from "vitest";
import { runTemplate, writeRepo } from "../support/python-task.ts";

const adversary = vi.hoisted(() => ({ watched: "", readsOpen: 0, waiting: [] as Array<() => void> }));

// Files are read and written through file handles (src/workspace/safe-path.ts): a read
// opened while another read of the watched file is still open waits until a write handle
// to it has closed. The real files are opened, read and written; only the order is forced.
vi.mock("node:fs/promises", async (importOriginal) => {
  const real = await importOriginal<typeof FsPromises>();
  const open = (async (
    path: Parameters<typeof real.open>[0],
    flags?: Parameters<typeof real.open>[1],
    mode?: Parameters<typeof real.open>[2],
  ) => {
    if (adversary.watched === "" || path !== adversary.watched) return real.open(path, flags, mode);
    const writing = typeof flags === "number" && (flags & (real.constants.O_WRONLY | real.constants.O_RDWR)) !== 0;
    if (writing) {
      const handle = await real.open(path, flags, mode);
      const close = handle.close.bind(handle);
      handle.close = async () => {
        await close();
        for (const release of adversary.waiting.splice(0)) release();
      };
      return handle;
    }
    const overlapping = adversary.readsOpen > 0;
    adversary.readsOpen += 1;
    if (overlapping) {
      // The timer only keeps a run with no write from waiting forever.
      await new Promise<void>((resolve) => {
        adversary.waiting.push(resolve);
        setTimeout(resolve, 2_000);
      });
    }
    const handle = await real.open(path, flags, mode).catch((error: unknown) => {
      adversary.readsOpen -= 1;
      throw error;
    });
    const close = handle.close.bind(handle);
    handle.close = async () => {
      adversary.readsOpen -= 1;
      await close();
    };
    return handle;
  }) as typeof real.open;
  return { ...real, open, default: { ...real, open } };
});

const SOURCE = "def average(values):\n    total = sum(values)\n    count = len(values)\n    return total / total\n";
const TESTS =
  "from lib import average\n\ndef test_average():\n    assert average([2, 4, 6]) == 4\n\ndef test_single():\n    assert average([5]) == 1 * 5\n";

describe("template strategy: parallel validation on a busy machine", () => {
  it("builds every candidate on the true original even when reads and a slot's write interleave", async () => {
    const { readFile } = await vi.importActual<typeof FsPromises>("node:fs/promises");
    const dir = await writeRepo({ "lib.py": SOURCE, "test_lib.py": TESTS });
    adversary.watched = join(dir, "lib.py");
    const outcome = await runTemplate(dir, 300, 3);
    adversary.watched = "";
    expect(outcome).toMatchObject({ status: "fixed", stopReason: "solved" });
    expect(outcome.plan.fix).toMatchObject({ family: "variable-replace", description: "`total` → `count`", line: 4 });
    expect(await readFile(join(dir, "lib.py"), "utf8")).toBe(SOURCE.replace("total / total", "total / count"));
    expect(outcome.diff).toBe(
      "--- a/lib.py\n+++ b/lib.py\n@@ -1,4 +1,4 @@\n def average(values):\n     total = sum(values)\n     count = len(values)\n-    return total / total\n+    return total / count\n",
    );
  });
});
