// Red team, CLI path: hostile repositories (Python and JavaScript) through the real
// `autogen fix <repo> --strategy template`, run as a child process with canary secrets in
// its environment (OPENAI_API_KEY, GITHUB_TOKEN, WEBHOOK_SECRET, PRIVATE_KEY), a sentinel
// tree, the bot's HOME and data dir, and a loot directory outside the worktree. One test
// per attack; each fails with what got through. The controls first: each attack is shown
// to work where nothing contains it, so a "held" is never vacuous.
//
// Isolation: whatever this machine has (the product's own detection; AUTOGEN_ISOLATION
// forces one), named in every test title.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostListener, isolationLevel, killTagged, makeCanaries, type HostListener } from "./support/redteam.ts";
import {
  CLI_ATTACKS,
  CLI_SCENARIOS,
  controls,
  egressControl,
  runScenarios,
  type AttackResult,
} from "./support/scenarios.ts";

const isolation = await isolationLevel();
const canaries = makeCanaries();
let host: HostListener;
let rows: AttackResult[] = [];
let controlRows: AttackResult[] = [];

beforeAll(async () => {
  host = await hostListener();
  controlRows = [...controls(canaries, host), await egressControl(host)];
  rows = await runScenarios(CLI_SCENARIOS, canaries, host, 3);
  // A guard against a hang only (each scenario's CLI run has its own time limit): the file takes
  // ~110 s of CPU, and at load 15-20 on 2 cores its scenarios took 532 s and once passed 600 s.
}, 1_200_000);

afterAll(() => {
  host?.server.close();
  killTagged("RTDAEMON-");
});

describe("controls: each attack works where nothing contains it", () => {
  it("the /proc reader, the planted hooks and programs, url.insteadOf and the egress target all work outside the bot", () => {
    expect(controlRows.length).toBe(4);
    for (const row of controlRows) expect(row.held, `${row.attack}: ${row.detail}`).toBe(true);
  });
});

describe(`red team through the CLI (isolation: ${isolation})`, () => {
  it("every scenario ran and judged exactly the attacks it names", () => {
    const harness = rows.filter((r) => r.path === "harness");
    expect(harness, harness.map((r) => r.detail).join("\n")).toEqual([]);
    expect(rows.map((r) => `${r.path} | ${r.attack}`).sort()).toEqual(
      CLI_ATTACKS.map(([path, attack]) => `${path} | ${attack}`).sort(),
    );
  });

  for (const [path, attack] of CLI_ATTACKS) {
    it(`${path}: ${attack}`, () => {
      const row = rows.find((r) => r.path === path && r.attack === attack);
      expect(row, "the attack was judged").toBeDefined();
      expect(row?.held, `BROKE (${isolation}): ${row?.detail}`).toBe(true);
    });
  }
});
