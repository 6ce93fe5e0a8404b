// Ending a warm runner (pytest server or node zygote): close its channel so it exits by
// itself, abort its sandbox if it has not within the grace time, then remove its control
// directory.
import type { WarmChannel } from "./warm-channel.ts";
import { removeTempDir } from "../../workspace/temp-dirs.ts";

export type WarmProcess = { channel: WarmChannel; done: Promise<unknown>; abort: AbortController; ctl: string };

const CLOSE_GRACE_MS = 2000;

export async function stopWarmProcess(warm: WarmProcess): Promise<void> {
  warm.channel.close();
  const timer = setTimeout(() => warm.abort.abort(), CLOSE_GRACE_MS);
  await warm.done;
  clearTimeout(timer);
  await removeTempDir(warm.ctl);
}
