// A long phase (an install, a baseline run, the engine between attempts) says it is still
// alive: when nothing was shown for HEARTBEAT_MS, the progress port gets a beat with the
// phase, its elapsed time and what is running. The clock is a port so tests drive it.
import type { Heartbeat, HeartbeatClock, StageName } from "./pipeline-ports.ts";

/** Silence after which a beat is due; checked every TICK_MS, so a beat comes at most 10 s apart. */
export const HEARTBEAT_MS = 9_000;
export const TICK_MS = 1_000;

export const systemClock: HeartbeatClock = {
  now: () => performance.now(),
  every(ms, tick) {
    const timer = setInterval(tick, ms);
    timer.unref();
    return () => clearInterval(timer);
  },
};

export class PhaseHeartbeat {
  private phase: { stage: StageName; doing: string; started: number } | undefined;
  private lastShown = 0;
  private stopTimer: (() => void) | undefined;

  private readonly clock: HeartbeatClock;
  private readonly beat: ((beat: Heartbeat) => void) | undefined;

  constructor(clock: HeartbeatClock, beat: ((beat: Heartbeat) => void) | undefined) {
    this.clock = clock;
    this.beat = beat;
  }

  /** A phase begins: the beat names it from now on. */
  enter(stage: StageName, doing: string): void {
    const now = this.clock.now();
    this.phase = { stage, doing, started: now };
    this.lastShown = now;
    if (this.beat && !this.stopTimer) this.stopTimer = this.clock.every(TICK_MS, () => this.tick());
  }

  /** Something was shown (a stage ended, an attempt finished): the silence starts again. */
  shown(doing?: string): void {
    this.lastShown = this.clock.now();
    if (doing && this.phase) this.phase.doing = doing;
  }

  tick(): void {
    if (!this.phase || !this.beat) return;
    const now = this.clock.now();
    if (now - this.lastShown < HEARTBEAT_MS) return;
    this.lastShown = now;
    this.beat({ stage: this.phase.stage, elapsedMs: now - this.phase.started, doing: this.phase.doing });
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = undefined;
    this.phase = undefined;
  }
}
