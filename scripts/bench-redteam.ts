// The red-team suite as a table: every attack of test/security/ (same hostile
// repositories, same product paths: the `autogen-bot fix` CLI and the App's verifier and push
// path), attack → held/broke, with the sandbox's isolation level. Exits 1 if any broke.
//
//   npm run bench:redteam            # whatever isolation this machine offers
//   AUTOGEN_ISOLATION=unshare npm run bench:redteam
//   npm run bench:redteam -- --only app     # scenarios whose name contains "app"
//   npm run bench:redteam -- --only memory  # the memory-limit rows alone
//   npm run bench:redteam -- --only host-reads  # the host-side read rows alone (CLI)
//   npm run bench:redteam -- --only host-side   # the host-side read rows of the App
import { hostListener, isolationLevel, killTagged, makeCanaries } from "../test/security/support/redteam.ts";
import { hostReadRows } from "../test/security/support/host-reads.ts";
import { MEMORY_ATTACKS, MEMORY_SCENARIOS } from "../test/security/support/memory-scenario.ts";
import {
  APP_ATTACKS,
  APP_SCENARIOS,
  CLI_ATTACKS,
  CLI_SCENARIOS,
  controls,
  egressControl,
  runScenarios,
  type AttackResult,
  type Scenario,
} from "../test/security/support/scenarios.ts";
import { HOST_READ_ATTACKS, hostReadsApp } from "../test/security/support/host-reads-app.ts";

const args = process.argv.slice(2);
const only = args.includes("--only") ? args[args.indexOf("--only") + 1] : undefined;
const isolation = await isolationLevel();
const canaries = makeCanaries();
const host = await hostListener();
const started = performance.now();

// The slow, idle time-limit scenario first (it sleeps alongside the others), then the App's, then the CLI's.
// Host-side reads through links a test planted (test/security/host-reads-app.test.ts), under this run's isolation.
const HOST_READS: Scenario = {
  name: "app: host-side reads through links (LPW, scripted model)",
  run: (c, h) => hostReadsApp(c, h),
};
const scenarios: Scenario[] = [
  ...CLI_SCENARIOS.slice(0, 1),
  ...APP_SCENARIOS,
  HOST_READS,
  ...CLI_SCENARIOS.slice(1),
  ...MEMORY_SCENARIOS,
].filter((s) => !only || s.name.includes(only));
const controlRows = [...controls(canaries, host), await egressControl(host)];
const rows = await runScenarios(scenarios, canaries, host, 3);
// Host-side reads through a link a test planted mid-run (LPW with a loopback model): issue 29.
if (!only || "host-reads".includes(only)) rows.push(...(await hostReadRows()));
host.server.close();
killTagged("RTDAEMON-");

// Attacks a scenario should have judged but did not: broken too (a silent skip is no pass).
const expected = [
  ...APP_ATTACKS,
  ...HOST_READ_ATTACKS.map((a): [string, string] => ["app py", a]),
  ...CLI_ATTACKS,
  ...MEMORY_ATTACKS,
];
const missing = only
  ? []
  : expected.filter(([path, attack]) => !rows.some((r) => r.path === path && r.attack === attack));
const all: AttackResult[] = [
  ...controlRows,
  ...rows,
  ...missing.map(([path, attack]) => ({
    attack,
    path,
    held: false,
    detail: "never judged (its scenario did not report it)",
  })),
];

const width = Math.min(100, Math.max(...all.map((r) => r.attack.length)));
const line = (a: string, b: string, c: string, d: string) => `${a.padEnd(8)} ${b.padEnd(7)} ${c.padEnd(width)}  ${d}`;
console.log(
  `red team: isolation ${isolation} (AUTOGEN_ISOLATION=${process.env.AUTOGEN_ISOLATION ?? "unset"}), ${Math.round((performance.now() - started) / 1000)} s\n`,
);
console.log(line("path", "result", "attack", "detail"));
console.log(line("----", "------", "------", "------"));
for (const r of all) {
  const result = r.path === "control" ? (r.held ? "works" : "FAILED") : r.held ? "held" : "BROKE";
  console.log(
    line(
      r.path,
      result,
      r.attack.length > width ? `${r.attack.slice(0, width - 1)}…` : r.attack,
      r.detail.replace(/\s+/g, " ").slice(0, 220),
    ),
  );
}
const broke = all.filter((r) => r.path !== "control" && !r.held);
const controlsFailed = controlRows.filter((r) => !r.held);
console.log(
  `\n${all.length - controlRows.length} attacks: ${all.length - controlRows.length - broke.length} held, ${broke.length} broke (isolation ${isolation})${controlsFailed.length ? `; ${controlsFailed.length} control(s) FAILED: results are not trustworthy` : "; all controls work"}`,
);
process.exit(broke.length > 0 || controlsFailed.length > 0 ? 1 : 0);
