// Handles the deliveries stored in the inbox, off the webhook's response path: each runs
// the App's handlers (the gate, the repository's config: GitHub calls), a failed attempt
// is retried with exponential backoff, and after the last attempt the delivery ends
// `failed` with the reason kept in the store. Pending rows survive a crash and are
// handled at the next start.
import type { Store } from "./store.ts";

export type InboxDelivery = { id: string; name: string; payload: Record<string, unknown> };
export type DeliveryHandler = (delivery: InboxDelivery) => Promise<void>;
type Log = { warn: (meta: object, message: string) => void; error: (meta: object, message: string) => void };

export type InboxOptions = {
  concurrency: number;
  maxAttempts: number;
  /** Delay before retry `attempt` (1 = the first retry). */
  backoffMs: (attempt: number) => number;
  log: Log;
  /**
   * How often to look for deliveries other than those this instance received or is
   * retrying (several instances on one database: another's stored delivery, or one whose
   * lease ran out); unset for a store only this process uses.
   */
  pollMs?: number | undefined;
  /**
   * Bytes of payload text handled at once. A payload becomes objects several times its
   * size while its handlers run, so this, not the delivery count alone, bounds the
   * inbox's memory: small deliveries run `concurrency` at a time, a large one waits for
   * room, and one larger than the whole budget is handled alone.
   */
  maxPayloadBytes?: number | undefined;
  /** Told the size of each payload once its handling has ended (the server returns large ones' memory at once). */
  released?: ((bytes: number) => void) | undefined;
};

export const DEFAULT_INBOX_OPTIONS = {
  concurrency: 8,
  maxAttempts: 6,
  // 2 s, 4 s, 8 s ... capped at 5 minutes: GitHub outages are usually short.
  backoffMs: (attempt: number) => Math.min(300_000, 1_000 * 2 ** attempt),
  // One delivery at the default body limit (4 MiB) at a time; GitHub's usual events are
  // a few kilobytes, so they still run eight at once.
  maxPayloadBytes: 4 * 1024 * 1024,
} satisfies Omit<InboxOptions, "log">;

/** The reason kept for a failed attempt: the first underlying error's message, bounded. */
function reasonOf(error: unknown): string {
  const inner = error instanceof AggregateError && error.errors.length > 0 ? error.errors[0] : error;
  const message = inner instanceof Error ? inner.message : String(inner);
  return message.slice(0, 500);
}

/** The payload as an object, or undefined when the text is not one JSON object. */
function objectOf(text: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === "object" && value !== null && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}

export class InboxProcessor {
  private readonly store: Store;
  private readonly handle: DeliveryHandler;
  private readonly options: InboxOptions;
  private readonly inFlight = new Map<string, Promise<void>>();
  /** Bytes of payload text of the deliveries in hand. */
  private payloadBytesInHand = 0;
  private timer: NodeJS.Timeout | undefined;
  private stopped = false;
  /** One look at the store at a time; a kick during it makes it look again when done. */
  private looking: Promise<void> | undefined;
  private again = false;

  constructor(store: Store, handle: DeliveryHandler, options: InboxOptions) {
    this.store = store;
    this.handle = handle;
    this.options = options;
  }

  /** Starts due deliveries while there is room. Cheap; call after every stored delivery. */
  kick(): void {
    if (this.stopped) return;
    if (this.looking) {
      this.again = true;
      return;
    }
    this.looking = this.look()
      .catch((error: unknown) => {
        // The store is unreachable (a network database): look again shortly.
        this.options.log.error({ err: (error as Error).message }, "inbox could not read the store; retrying");
        this.schedule(1_000);
      })
      .finally(() => {
        this.looking = undefined;
        if (this.again) {
          this.again = false;
          this.kick();
        }
      });
  }

  private async look(): Promise<void> {
    // One instant for both questions: a retry that falls due between them would otherwise be
    // neither started (not due yet) nor timed (no longer in the future), and wait for good.
    const now = Date.now();
    const room = this.options.concurrency - this.inFlight.size;
    const maxBytes = this.options.maxPayloadBytes ?? Number.MAX_SAFE_INTEGER;
    const fit = { maxBytes: maxBytes - this.payloadBytesInHand, atLeastOne: this.inFlight.size === 0 };
    if (room > 0 && (fit.maxBytes > 0 || fit.atLeastOne)) {
      for (const row of await this.store.dueDeliveries(now, room, new Set(this.inFlight.keys()), fit)) {
        if (this.stopped) break;
        const bytes = Buffer.byteLength(row.payload);
        this.payloadBytesInHand += bytes;
        const done = this.attempt(row.deliveryId, row.event, row.payload, row.attempts)
          // The outcome could not be stored: the row stays pending and is handled again (idempotent per delivery).
          .catch((error: unknown) =>
            this.options.log.error(
              { deliveryId: row.deliveryId, err: (error as Error).message },
              "inbox could not store a delivery's outcome",
            ),
          )
          .finally(() => {
            this.inFlight.delete(row.deliveryId);
            this.payloadBytesInHand -= bytes;
            this.options.released?.(bytes);
            this.kick();
          });
        this.inFlight.set(row.deliveryId, done);
      }
    }
    await this.scheduleNext(now);
  }

  private async attempt(id: string, name: string, payloadText: string, attempts: number): Promise<void> {
    const payload = objectOf(payloadText);
    if (payload === undefined) {
      // The ingress checked the body's syntax; a stored text that still is not one object is
      // not made better by waiting: failed at once, never handed to the handlers.
      const reason = "the stored payload is not a JSON object";
      await this.store.deliveryAttemptFailed(id, reason, undefined);
      this.options.log.error(
        { deliveryId: id, event: name, attempts: attempts + 1, reason },
        "webhook delivery failed for good",
      );
      return;
    }
    try {
      await this.handle({ id, name, payload });
      await this.store.deliveryDone(id);
    } catch (error) {
      const attempt = attempts + 1;
      const final = attempt >= this.options.maxAttempts;
      const reason = reasonOf(error);
      await this.store.deliveryAttemptFailed(
        id,
        reason,
        final ? undefined : Date.now() + this.options.backoffMs(attempt),
      );
      if (final)
        this.options.log.error(
          { deliveryId: id, event: name, attempts: attempt, reason },
          "webhook delivery failed for good",
        );
      else
        this.options.log.warn(
          { deliveryId: id, event: name, attempt, reason },
          "webhook delivery attempt failed; retrying",
        );
    }
  }

  private async scheduleNext(now: number): Promise<void> {
    if (this.stopped) return;
    // Deliveries due at `now` start when an attempt in hand ends (it kicks); only retries
    // waiting for their time need a timer (and, with several instances, deliveries another
    // instance received: `pollMs`).
    const next = await this.store.nextDueAfter(now);
    const poll = this.options.pollMs;
    const delay =
      next === undefined ? poll : Math.min(Math.max(10, next - Date.now()), poll ?? Number.POSITIVE_INFINITY);
    if (delay === undefined) {
      if (this.timer) clearTimeout(this.timer);
      this.timer = undefined;
      return;
    }
    this.schedule(delay);
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => this.kick(), delayMs);
    this.timer.unref();
  }

  /** Resolves when no delivery is being handled (for tests and benchmarks). */
  async idle(): Promise<void> {
    while (this.inFlight.size > 0 || this.looking) await Promise.all([...this.inFlight.values(), this.looking]);
  }

  /** Stops taking deliveries and waits for those in hand; the rest stay pending for the next start. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.idle();
  }
}
