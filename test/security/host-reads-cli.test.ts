// Red team, host-side reads through the real CLI: a hostile repository's test swaps a
// context file for a link (to /proc/self/environ, a 0600 host file, /dev/zero) after the
// bot's first change, so the prompts that show the current code would read it on the host.
// The machinery is in support/host-reads.ts (scripts/bench-redteam.ts prints the same rows).
import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import {
  attack,
  attackRan,
  canaries,
  defaultIsolation,
  ENV_MARKER,
  hasBwrap,
  leaks,
  type Run,
} from "./support/host-reads.ts";

const root = mkdtempSync(join(tmpdir(), "autogen-rt-hostfile-"));
const hostFile = join(root, "root-only.txt");
const HOST_CANARY = `RTCANARYhostfile${Date.now()}`;
let environRuns: Array<{ isolation: string; run: Run }> = [];
let hostFileRun: Run;
let zeroRun: Run;

beforeAll(async () => {
  mkdirSync(root, { recursive: true });
  writeFileSync(hostFile, `a host file the sandbox cannot see: ${HOST_CANARY}\n`);
  chmodSync(hostFile, 0o600);
  const backends = hasBwrap ? ["bwrap", "unshare"] : [undefined];
  environRuns = [];
  for (const isolation of backends)
    environRuns.push({ isolation: isolation ?? defaultIsolation, run: await attack("/proc/self/environ", isolation) });
  hostFileRun = await attack(hostFile, undefined);
  zeroRun = await attack("/dev/zero", undefined);
}, 900_000);

afterAll(() => rmSync(root, { recursive: true, force: true }));

describe(`red team, host-side reads through a link a test planted (CLI, default isolation ${defaultIsolation})`, () => {
  it("a context file turned into a link to /proc/self/environ: no canary reaches the model, transcript, report or output (each backend)", () => {
    expect(environRuns.length).toBeGreaterThan(0);
    for (const { isolation, run } of environRuns) {
      expect(attackRan(run), `${isolation}: the attack did not run`).toEqual([]);
      expect(leaks(run, canaries, [ENV_MARKER]), `BROKE under ${isolation}`).toEqual([]);
    }
  });

  it("a link to a host file outside the worktree (mode 0600): its content is never read", () => {
    expect(attackRan(hostFileRun)).toEqual([]);
    expect(leaks(hostFileRun, canaries, [HOST_CANARY, ENV_MARKER])).toEqual([]);
  });

  it("a link to /dev/zero: never read (the run ends, no prompt carries NUL bytes)", () => {
    expect(attackRan(zeroRun)).toEqual([]);
    expect(zeroRun.code, zeroRun.stderr.slice(0, 2000)).not.toBeNull();
    const sent = JSON.stringify(zeroRun.requests);
    expect(sent).not.toContain("\\u0000");
    expect(sent.length).toBeLessThan(2_000_000);
    // Reading /dev/zero grows the bot by a gigabyte or more before it gives up; the bot's own run stays far below.
    expect(zeroRun.maxRssKb, "the largest resident set of the bot and its children, in KiB").toBeLessThan(500 * 1024);
  });
});
