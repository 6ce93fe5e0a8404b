// Live progress for `autogen fix`: one rewritten status line on a terminal, plain log
// lines otherwise (CI logs, pipes).
import type { ProgressEvent } from "../engine/task.ts";

export function progressPrinter(
  write: (text: string) => void,
  isTty: boolean,
): { onProgress: (event: ProgressEvent) => void; done: () => void } {
  const started = performance.now();
  const elapsed = () => `${((performance.now() - started) / 1000).toFixed(1)}s`;
  let live = false;
  return {
    onProgress(event) {
      if (event.kind === "stage") {
        if (live) write("\n");
        live = false;
        write(`[${elapsed()}] ${event.stage}${event.detail ? `: ${event.detail}` : ""}\n`);
        return;
      }
      // A candidate stopped by its time limit says so ("timed out after 1.1 s in test_x"), without the long reason.
      const result = event.limit ? event.limit.split(" (")[0] : `${event.passed} passed, ${event.failed} failed`;
      const line = `[${elapsed()}] attempt ${event.index}/${event.total}: ${event.description} → ${result}`;
      if (isTty) {
        write(`\r\u001b[2K${line.slice(0, (process.stdout.columns || 120) - 1)}`);
        live = true;
      } else {
        write(`${line}\n`);
      }
    },
    done() {
      if (live) write("\n");
      live = false;
    },
  };
}
