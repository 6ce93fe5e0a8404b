// Red team, memory: a repository whose test allocates and touches 6 GiB (Python and Node),
// with the test run's memory limit lowered to 256 MiB in its config, through the real
// `autogen fix` CLI. Held when the bot's whole process tree never grew past the limit plus
// a generous slack for the bot's own processes, and the bot says which limit stopped the
// run. Where no memory cgroup can be made (AUTOGEN_SANDBOX_CGROUP=off shows that path), the
// bound is the address-space floor of 2 GiB per process instead.
//
// Isolation: whatever this machine has (AUTOGEN_ISOLATION=unshare forces the fallback).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostListener, isolationLevel, makeCanaries, type HostListener } from "./support/redteam.ts";
import { MEMORY_ATTACKS, MEMORY_SCENARIOS } from "./support/memory-scenario.ts";
import { runScenarios, type AttackResult } from "./support/scenarios.ts";

const isolation = await isolationLevel();
let host: HostListener;
let rows: AttackResult[] = [];

beforeAll(async () => {
  host = await hostListener();
  // One at a time: without the limit each would take 6 GiB of the shared machine.
  rows = await runScenarios(MEMORY_SCENARIOS, makeCanaries(), host, 1);
}, 600_000);

afterAll(() => {
  host?.server.close();
});

describe(`red team, memory, through the CLI (isolation: ${isolation}, cgroup: ${process.env.AUTOGEN_SANDBOX_CGROUP ?? "auto"})`, () => {
  for (const [path, attack] of MEMORY_ATTACKS) {
    it(`${path}: ${attack}`, () => {
      const harness = rows.filter((r) => r.path === "harness");
      expect(harness, harness.map((r) => r.detail).join("\n")).toEqual([]);
      const row = rows.find((r) => r.path === path && r.attack === attack);
      expect(row, "the attack was judged").toBeDefined();
      expect(row?.held, `BROKE (${isolation}): ${row?.detail}`).toBe(true);
    });
  }
});
