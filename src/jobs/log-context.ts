// Which job and which webhook delivery the code running now works for, carried across
// awaits (AsyncLocalStorage), so every log line written on their behalf names them: the
// job's own lines, the GitHub client's request lines, the gate's. The server's logger
// adds these fields to each line (see server-log.ts).
import { AsyncLocalStorage } from "node:async_hooks";

export type LogContext = { jobId?: number; deliveryId?: string };

const storage = new AsyncLocalStorage<LogContext>();

/** Runs `work` with `context` added to what is already in effect. */
export function withLogContext<T>(context: LogContext, work: () => T): T {
  return storage.run({ ...storage.getStore(), ...context }, work);
}

export function logContext(): LogContext {
  return storage.getStore() ?? {};
}
