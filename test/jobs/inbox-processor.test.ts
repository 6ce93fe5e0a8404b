// The inbox's retries on a machine that pauses: a retry that falls due between the
// processor's "what is due now?" and "when is the next one due?" must still be handled.
// Only the clock (Date) is faked, to make that pause happen at exactly that point; the
// store is the real SQLite one and the timers are real.
import { afterEach, describe, expect, it, vi } from "vitest";
import { InboxProcessor } from "../../src/jobs/inbox-processor.ts";
import { JobStore } from "../../src/jobs/job-store.ts";

const log = { warn: () => undefined, error: () => undefined };

afterEach(() => {
  vi.useRealTimers();
});

async function settled(store: JobStore, id: string): Promise<string | undefined> {
  // A hang guard only (about 60 s of real time; the faked clock is no guide): the retry is due 20 ms after the failure.
  for (let i = 0; i < 6_000 && (await store.inbox(id))?.state === "pending"; i++)
    await new Promise((resolve) => setTimeout(resolve, 10));
  return (await store.inbox(id))?.state;
}

describe("inbox processor", () => {
  it("retries a failed delivery even when the machine pauses between looking for due work and timing the next", async () => {
    vi.useFakeTimers({ toFake: ["Date"], now: Date.now() });
    const store = new JobStore(":memory:");
    // Right after each look for due deliveries, a second passes (a busy machine, a GC pause).
    const dueDeliveries = store.dueDeliveries.bind(store);
    store.dueDeliveries = (now, limit, exclude) => {
      const rows = dueDeliveries(now, limit, exclude);
      vi.setSystemTime(Date.now() + 1_000);
      return rows;
    };
    let calls = 0;
    const processor = new InboxProcessor(
      store,
      async () => {
        calls += 1;
        if (calls === 1) throw new Error("502 Bad Gateway");
      },
      { concurrency: 2, maxAttempts: 3, backoffMs: () => 20, log },
    );
    expect(await store.receive("pause-1", "issues", "{}")).toBe(true);
    processor.kick();
    expect(await settled(store, "pause-1")).toBe("done");
    expect(await store.inbox("pause-1")).toMatchObject({ state: "done", attempts: 2 });
    expect(calls).toBe(2);
    await processor.stop();
    store.close();
  });

  it.each(["{not json", "[1,2]", "1", "null", '"text"', ""])(
    "fails a stored payload that is not one JSON object (%j) at once, with its reason, never handing it to the handlers",
    async (payload) => {
      const store = new JobStore(":memory:");
      const handled: unknown[] = [];
      const errors: Array<Record<string, unknown>> = [];
      const processor = new InboxProcessor(store, async (delivery) => void handled.push(delivery.payload), {
        concurrency: 2,
        maxAttempts: 6,
        backoffMs: () => 20,
        log: { warn: () => undefined, error: (meta) => void errors.push(meta as Record<string, unknown>) },
      });
      // Stored as the ingress would store a body its syntax check let through.
      expect(await store.receive("not-object", "issues", payload)).toBe(true);
      await store.receive("fine", "issues", '{"action":"created"}');
      processor.kick();
      expect(await settled(store, "not-object")).toBe("failed");
      expect(await settled(store, "fine")).toBe("done");
      expect(await store.inbox("not-object")).toMatchObject({
        state: "failed",
        attempts: 1,
        error: "the stored payload is not a JSON object",
      });
      expect(handled).toEqual([{ action: "created" }]);
      expect(errors).toEqual([
        expect.objectContaining({ deliveryId: "not-object", reason: "the stored payload is not a JSON object" }),
      ]);
      await processor.stop();
      await store.close();
    },
  );
  it("handles large payloads one at a time within its byte budget while small ones run side by side", async () => {
    const store = new JobStore(":memory:");
    const big = (n: number) => JSON.stringify({ n, text: "b".repeat(6_000) });
    for (let n = 0; n < 4; n++) await store.receive(`big-${n}`, "issues", big(n));
    for (let n = 0; n < 4; n++) await store.receive(`small-${n}`, "issues", JSON.stringify({ n }));
    let bytesInHand = 0;
    let peakBytes = 0;
    let inHand = 0;
    let peakSmall = 0;
    const processor = new InboxProcessor(
      store,
      async (delivery) => {
        const bytes = JSON.stringify(delivery.payload).length;
        bytesInHand += bytes;
        inHand += 1;
        peakBytes = Math.max(peakBytes, bytesInHand);
        if (bytes < 100) peakSmall = Math.max(peakSmall, inHand);
        // Held across several turns of the event loop, so the processor has the chance to start more.
        for (let i = 0; i < 5; i++) await new Promise((resolve) => setTimeout(resolve, 5));
        bytesInHand -= bytes;
        inHand -= 1;
      },
      { concurrency: 8, maxAttempts: 2, backoffMs: () => 20, maxPayloadBytes: 10_000, log },
    );
    processor.kick();
    for (let n = 0; n < 4; n++) expect(await settled(store, `big-${n}`)).toBe("done");
    for (let n = 0; n < 4; n++) expect(await settled(store, `small-${n}`)).toBe("done");
    await processor.idle();
    // Two 6 KB payloads never in hand together under a 10 KB budget; the small ones did run together.
    expect(peakBytes).toBeLessThanOrEqual(10_000);
    expect(peakBytes).toBeGreaterThan(6_000);
    expect(peakSmall).toBeGreaterThan(1);
    await processor.stop();
    store.close();
  });
});
