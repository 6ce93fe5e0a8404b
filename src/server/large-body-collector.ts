// Gives the memory of large webhook bodies back when they are done with, instead of when
// the garbage collector next happens to run. The in-flight budget counts a body until the
// store has committed it, but its bytes, its text and (in the inbox) its parsed objects
// stay resident until a collection: on a busy machine V8 runs one only after tens of
// megabytes of such garbage, so the process grew by twice the budget under a burst of
// 4 MiB bodies. After a large body is released, one full collection is asked for; calls
// close together share one, and they are at least `minIntervalMs` apart, so a flood of
// large bodies costs at most one collection per interval. GitHub's usual events are a few
// kilobytes and never reach the threshold.
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";

export type LargeBodyCollector = { released: (bytes: number) => void; stop: () => void };

let exposed: (() => void) | undefined;

/** V8's full collection: `global.gc` when Node was started with --expose-gc, else exposed now. */
export function fullCollection(): () => void {
  if (exposed) return exposed;
  const existing = (globalThis as { gc?: () => void }).gc;
  if (typeof existing === "function") exposed = existing;
  else {
    setFlagsFromString("--expose-gc");
    exposed = runInNewContext("gc") as () => void;
  }
  return exposed;
}

export const LARGE_BODY_BYTES = 1024 * 1024;

export function largeBodyCollector(
  options: { thresholdBytes?: number; minIntervalMs?: number; collect?: () => void } = {},
): LargeBodyCollector {
  const threshold = options.thresholdBytes ?? LARGE_BODY_BYTES;
  const interval = options.minIntervalMs ?? 250;
  const collect = options.collect ?? fullCollection();
  let timer: NodeJS.Timeout | undefined;
  let last = Number.NEGATIVE_INFINITY;
  return {
    released(bytes: number) {
      if (bytes < threshold || timer) return;
      // After the current turn, so the caller's last references to the body are gone.
      timer = setTimeout(
        () => {
          timer = undefined;
          last = Date.now();
          collect();
        },
        Math.max(0, last + interval - Date.now()),
      );
      timer.unref();
    },
    stop() {
      if (timer) clearTimeout(timer);
      timer = undefined;
    },
  };
}
