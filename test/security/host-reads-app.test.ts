// Red team, host-side reads through the App (issue 29, point 1): a hostile repository's
// conftest.py turns three context files into links after every test session (to the bot's
// /proc/self/environ, to a root-only host file, to /dev/zero); the App's job runs LPW
// against a scripted model on loopback (support/host-reads-app.ts). Under each sandbox backend
// this machine has (bubblewrap, and the unshare fallback when bubblewrap is the default):
// nothing of the bot's environment nor the host file reaches a request to the model, the
// transcript, the PR, the comments, the job record or the logs; /dev/zero is never read
// (no NUL in a prompt, the App's peak memory bounded).
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { HOST_READ_ATTACKS, hostReadsApp } from "./support/host-reads-app.ts";
import { hostListener, isolationLevel, makeCanaries, type HostListener } from "./support/redteam.ts";
import type { AttackResult } from "./support/scenarios.ts";

const isolation = await isolationLevel();
// AUTOGEN_ISOLATION forces one backend, as in the other red-team tests; otherwise the default, and unshare beside bubblewrap.
const backends = process.env.AUTOGEN_ISOLATION
  ? [process.env.AUTOGEN_ISOLATION]
  : isolation === "bwrap"
    ? ["bwrap", "unshare"]
    : [isolation];
const canaries = makeCanaries();
let host: HostListener;
const rows = new Map<string, AttackResult[]>();

beforeAll(async () => {
  host = await hostListener();
  for (const backend of backends) rows.set(backend, await hostReadsApp(canaries, host, backend));
}, 900_000);

afterAll(() => host?.server.close());

for (const backend of backends) {
  describe(`red team, host-side reads through a link a test planted (App path, isolation: ${backend})`, () => {
    for (const attack of HOST_READ_ATTACKS) {
      it(attack, () => {
        const row = rows.get(backend)?.find((r) => r.attack === attack);
        expect(row, "the attack was judged").toBeDefined();
        expect(row?.held, `BROKE (${backend}): ${row?.detail}`).toBe(true);
      });
    }
  });
}
