// Red team, App path: the hostile Python and JavaScript repositories through a real Probot (labelled
// issue → job → RepoCache mirror and worktree → local verifier → commitAndPush (Git Data API) → PR),
// GitHub faked over HTTP with a canary installation token, a real bare repository as the
// push target, and the bot's secrets in the environment of the process that runs it
// (support/app-harness.ts). One test per attack, each failing with what got through.
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { hostListener, isolationLevel, killTagged, makeCanaries, type HostListener } from "./support/redteam.ts";
import { APP_ATTACKS, APP_SCENARIOS, runScenarios, type AttackResult } from "./support/scenarios.ts";

const isolation = await isolationLevel();
const canaries = makeCanaries();
let host: HostListener;
let rows: AttackResult[] = [];

beforeAll(async () => {
  host = await hostListener();
  rows = await runScenarios(APP_SCENARIOS, canaries, host, 2);
}, 400_000);

afterAll(() => {
  host?.server.close();
  killTagged("RTDAEMON-");
});

describe(`red team through the App's verifier and push path (isolation: ${isolation})`, () => {
  it("every scenario ran and judged exactly the attacks it names", () => {
    expect(
      rows.map((r) => `${r.path} | ${r.attack}`).sort(),
      rows.map((r) => `${r.attack}: ${r.detail}`).join("\n"),
    ).toEqual(APP_ATTACKS.map(([path, attack]) => `${path} | ${attack}`).sort());
  });

  for (const [path, attack] of APP_ATTACKS) {
    it(`${path}: ${attack}`, () => {
      const row = rows.find((r) => r.path === path && r.attack === attack);
      expect(row, "the attack was judged").toBeDefined();
      expect(row?.held, `BROKE (${isolation}): ${row?.detail}`).toBe(true);
    });
  }
});
