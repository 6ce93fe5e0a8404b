// What both warm slots (pytest, node zygote) do alike: fall back to the cold verifier
// with the reason counted, and open a control directory whose socket the warm server
// dials before it starts.
import { join } from "node:path";
import type { TestSelection } from "../runners/test-runner.ts";
import type { TestReport } from "../test-report.ts";
import type { RunTimeLimit, Verifier, WarmStats } from "../verifier.ts";
import { WarmChannel } from "./warm-channel.ts";
import { makeTempDir } from "../../workspace/temp-dirs.ts";

/** A cold run in the slot's stead, counted with its reason (the first 20 distinct reasons are kept). */
export function coldFallback(stats: WarmStats, cold: Verifier, workspace: string) {
  return async (selection: TestSelection, limit: RunTimeLimit | undefined, reason: string): Promise<TestReport> => {
    stats.cold += 1;
    if (stats.coldReasons.length < 20 && !stats.coldReasons.includes(reason)) stats.coldReasons.push(reason);
    return cold.run(workspace, selection, undefined, limit);
  };
}

/** One server start: counted, with a fresh control directory and the channel listening on its socket. */
export async function openControl(
  stats: WarmStats,
): Promise<{ ctl: string; socket: string; channel: WarmChannel; abort: AbortController }> {
  stats.starts += 1;
  const ctl = await makeTempDir("autogen-warm-");
  const socket = join(ctl, "w.sock");
  const channel = await WarmChannel.listen(socket);
  return { ctl, socket, channel, abort: new AbortController() };
}
