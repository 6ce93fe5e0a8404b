// The collector that gives large bodies' memory back: one full collection per burst of
// large releases, spaced by its interval, none for small bodies; and the real V8
// collection it uses returns the memory of a dropped body.
import { describe, expect, it } from "vitest";
import { fullCollection, largeBodyCollector } from "../../src/server/large-body-collector.ts";

const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

describe("large body collector", () => {
  it("asks for one collection after a burst of large releases and none for small ones", async () => {
    let collections = 0;
    const collector = largeBodyCollector({
      thresholdBytes: 1_000,
      minIntervalMs: 50,
      collect: () => void collections++,
    });
    for (let i = 0; i < 20; i++) collector.released(999);
    await settle(20);
    expect(collections).toBe(0);
    for (let i = 0; i < 20; i++) collector.released(4_000);
    // Waits on the count, not on a time: the machine may be slow.
    for (let i = 0; i < 500 && collections === 0; i++) await settle(10);
    expect(collections).toBe(1);
    // A second burst after the first collection: one more, not twenty.
    for (let i = 0; i < 20; i++) collector.released(4_000);
    for (let i = 0; i < 500 && collections === 1; i++) await settle(10);
    await settle(100);
    expect(collections).toBe(2);
    collector.stop();
  });

  it("does nothing after stop", async () => {
    let collections = 0;
    const collector = largeBodyCollector({
      thresholdBytes: 1,
      minIntervalMs: 10_000,
      collect: () => void collections++,
    });
    collector.released(10);
    collector.stop();
    await settle(30);
    expect(collections).toBe(0);
  });

  it("uses V8's real full collection, which frees a dropped body's memory", async () => {
    const collect = fullCollection();
    const holder: { body?: Buffer } = { body: Buffer.alloc(32 * 1024 * 1024, 1) };
    const held = process.memoryUsage().arrayBuffers;
    expect(holder.body?.length).toBe(32 * 1024 * 1024);
    delete holder.body;
    collect();
    // The backing store is swept off the main thread: wait for the count to drop, not for a time.
    for (let i = 0; i < 300 && process.memoryUsage().arrayBuffers >= held - 16 * 1024 * 1024; i++) await settle(10);
    expect(process.memoryUsage().arrayBuffers).toBeLessThan(held - 16 * 1024 * 1024);
  });
});
