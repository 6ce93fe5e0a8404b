import { describe, expect, it } from "vitest";
import { RunWaiters } from "../../src/verify/run-waiters.ts";

describe("run waiters", () => {
  it("a completion webhook wakes the sleeper on that run, not others", async () => {
    const waiters = new RunWaiters();
    const order: string[] = [];
    const a = waiters.sleep(1, 60_000).then(() => order.push("run 1"));
    const b = waiters.sleep(2, 200).then(() => order.push("run 2 (timer)"));
    waiters.notify(1);
    await Promise.all([a, b]);
    expect(order).toEqual(["run 1", "run 2 (timer)"]);
  });

  it("a completion reported before the sleep starts is not missed", async () => {
    const waiters = new RunWaiters();
    waiters.notify(5);
    const woke = await Promise.race([
      waiters.sleep(5, 60_000).then(() => "woken"),
      new Promise((r) => setTimeout(() => r("timer"), 500)),
    ]);
    expect(woke).toBe("woken");
  });

  it("an abort ends the sleep", async () => {
    const waiters = new RunWaiters();
    const controller = new AbortController();
    const sleeping = waiters.sleep(9, 60_000, controller.signal).then(() => "ended");
    controller.abort();
    expect(await sleeping).toBe("ended");
  });
});
