// Spending caps for one job, enforced before every model call: a call is made only while
// every cap still has room, so spend never passes a cap by more than that one call.
export type BudgetCaps = { llmCalls: number; tokens: number; dollars: number; minutes: number };

export type BudgetState = {
  caps: BudgetCaps;
  llmCalls: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens: number;
  dollars: number;
  /** Answers a cache in front of the model served again (same completion, same request): never billed. */
  cachedCalls: number;
  /** Calls that reached the model, by stage. */
  callsByStage: Record<string, number>;
  /** When the first call that reached the model was sent (the clock's value), none before. */
  firstCallAt?: number;
  /** When the job was ready for the model (its baseline run done, its visible tests chosen), the clock's value. */
  readyAt?: number;
  /** Time spent waiting on the model, in milliseconds. */
  waitMs: number;
  startedAt: number;
};

export class BudgetExceededError extends Error {
  readonly cap: keyof BudgetCaps;
  constructor(cap: keyof BudgetCaps, detail: string) {
    super(`budget exhausted: ${detail}`);
    this.name = "BudgetExceededError";
    this.cap = cap;
  }
}

export class Budget {
  readonly state: BudgetState;
  private readonly now: () => number;

  constructor(caps: BudgetCaps, now: () => number = Date.now, state?: BudgetState) {
    this.now = now;
    this.state = state ?? {
      caps,
      llmCalls: 0,
      promptTokens: 0,
      completionTokens: 0,
      cachedTokens: 0,
      dollars: 0,
      cachedCalls: 0,
      callsByStage: {},
      waitMs: 0,
      startedAt: now(),
    };
  }

  /** Throws when any cap is reached; called before each model call. */
  ensureRoom(): void {
    const s = this.state;
    const c = s.caps;
    if (s.llmCalls >= c.llmCalls)
      throw new BudgetExceededError("llmCalls", `${s.llmCalls} of ${c.llmCalls} model calls used`);
    const tokens = s.promptTokens + s.completionTokens;
    if (tokens >= c.tokens) throw new BudgetExceededError("tokens", `${tokens} of ${c.tokens} tokens used`);
    if (c.dollars === 0)
      throw new BudgetExceededError("dollars", "the dollar budget is 0: model calls are not allowed");
    if (s.dollars >= c.dollars)
      throw new BudgetExceededError("dollars", `$${s.dollars.toFixed(4)} of $${c.dollars} spent`);
    const minutes = (this.now() - s.startedAt) / 60_000;
    if (minutes >= c.minutes)
      throw new BudgetExceededError("minutes", `${minutes.toFixed(1)} of ${c.minutes} minutes used`);
  }

  /** The most completion tokens the next call may ask for. */
  completionAllowance(defaultMax: number): number {
    const left = this.state.caps.tokens - this.state.promptTokens - this.state.completionTokens;
    return Math.max(1, Math.min(defaultMax, left));
  }

  /** Wall-clock time left before the minutes cap, in milliseconds; a model call in flight is abandoned when it runs out. */
  timeLeftMs(): number {
    return Math.max(0, this.state.caps.minutes * 60_000 - (this.now() - this.state.startedAt));
  }

  /** Marks the moment the job could ask the model (the first mark counts): the first call is timed from here too. */
  markReady(): void {
    this.state.readyAt ??= this.now();
  }

  /** Marks the start of a model call: the first one is remembered (seconds to the first model call). */
  startCall(): void {
    this.state.firstCallAt ??= this.now();
  }

  record(
    usage: { promptTokens: number; completionTokens: number; cachedTokens: number },
    dollars: number,
    waitMs = 0,
    stage?: string,
  ): void {
    this.state.waitMs += waitMs;
    this.state.llmCalls += 1;
    if (stage) this.state.callsByStage[stage] = (this.state.callsByStage[stage] ?? 0) + 1;
    this.state.promptTokens += usage.promptTokens;
    this.state.completionTokens += usage.completionTokens;
    this.state.cachedTokens += usage.cachedTokens;
    this.state.dollars += dollars;
  }

  /** An answer served from a cache: counted apart, neither a paid call nor tokens. */
  recordCached(waitMs = 0): void {
    this.state.waitMs += waitMs;
    this.state.cachedCalls += 1;
  }
}
