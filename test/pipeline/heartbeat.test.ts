// The heartbeat on a hand-driven clock: a beat only after HEARTBEAT_MS of silence, again
// every HEARTBEAT_MS while the phase stays silent, never after something was shown, and
// no timer once stopped (or when no one listens).
import { describe, expect, it } from "vitest";
import { HEARTBEAT_MS, PhaseHeartbeat, TICK_MS } from "../../src/pipeline/heartbeat.ts";
import type { HeartbeatClock } from "../../src/pipeline/pipeline-ports.ts";
import type { Heartbeat } from "../../src/pipeline/pipeline-ports.ts";

function manualClock() {
  const state = { now: 0, ticks: [] as Array<{ ms: number; tick: () => void }>, cancelled: 0 };
  const clock: HeartbeatClock = {
    now: () => state.now,
    every: (ms, tick) => {
      state.ticks.push({ ms, tick });
      return () => {
        state.cancelled += 1;
      };
    },
  };
  const advance = (ms: number) => {
    for (let t = 0; t < ms; t += TICK_MS) {
      state.now += TICK_MS;
      for (const { tick } of state.ticks) tick();
    }
  };
  return { clock, state, advance };
}

describe("PhaseHeartbeat", () => {
  it("beats after the silence, then again every period, with the phase and its elapsed time", () => {
    const { clock, state, advance } = manualClock();
    const beats: Heartbeat[] = [];
    const heartbeat = new PhaseHeartbeat(clock, (beat) => beats.push(beat));
    heartbeat.enter("baseline", "the whole suite (pytest)");
    expect(state.ticks).toEqual([{ ms: TICK_MS, tick: expect.any(Function) }]);
    advance(HEARTBEAT_MS - TICK_MS);
    expect(beats).toEqual([]);
    advance(TICK_MS);
    expect(beats).toEqual([{ stage: "baseline", elapsedMs: HEARTBEAT_MS, doing: "the whole suite (pytest)" }]);
    advance(HEARTBEAT_MS);
    expect(beats.map((b) => b.elapsedMs)).toEqual([HEARTBEAT_MS, 2 * HEARTBEAT_MS]);
    // A beat comes at most 10 s after the last thing shown.
    expect(HEARTBEAT_MS + TICK_MS).toBeLessThanOrEqual(10_000);
  });

  it("something shown restarts the silence and says what runs now; a new phase restarts the time", () => {
    const { clock, advance } = manualClock();
    const beats: Heartbeat[] = [];
    const heartbeat = new PhaseHeartbeat(clock, (beat) => beats.push(beat));
    heartbeat.enter("run", "the lpw strategy");
    advance(HEARTBEAT_MS - TICK_MS);
    heartbeat.shown("attempt 1: swap the operands");
    advance(HEARTBEAT_MS - TICK_MS);
    expect(beats).toEqual([]);
    advance(TICK_MS);
    const doing = "attempt 1: swap the operands";
    expect(beats).toEqual([{ stage: "run", elapsedMs: 2 * HEARTBEAT_MS - TICK_MS, doing }]);
    heartbeat.enter("post-checks", "checking the diff");
    advance(HEARTBEAT_MS);
    expect(beats.at(-1)).toEqual({ stage: "post-checks", elapsedMs: HEARTBEAT_MS, doing: "checking the diff" });
  });

  it("stops its timer once, and starts none when no one listens", () => {
    const { clock, state, advance } = manualClock();
    const beats: Heartbeat[] = [];
    const heartbeat = new PhaseHeartbeat(clock, (beat) => beats.push(beat));
    heartbeat.enter("install", "installing");
    heartbeat.enter("setup", "the setup command");
    expect(state.ticks).toHaveLength(1);
    heartbeat.stop();
    advance(3 * HEARTBEAT_MS);
    expect(beats).toEqual([]);
    expect(state.cancelled).toBe(1);

    const quiet = manualClock();
    const silent = new PhaseHeartbeat(quiet.clock, undefined);
    silent.enter("baseline", "the whole suite");
    expect(quiet.state.ticks).toEqual([]);
  });
});
