// Stopping `autogen fix` (SIGTERM from a supervisor or `timeout`, Ctrl-C's SIGINT) ends
// every test process it started: nothing is left re-parented to init.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../support/git-repo.ts";
import { ROOT } from "../support/run-cli.ts";

/** Every process on the host whose command line holds `marker`. */
function processesWith(marker: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, "utf8").includes(marker)) found.push(Number(entry));
    } catch {
      // gone
    }
  }
  return found;
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe("autogen fix stopped by a signal", () => {
  it.each([
    ["SIGTERM", "bwrap"],
    ["SIGINT", "bwrap"],
    // unshare(1) ignores SIGTERM while it waits for its child: the group kill must reach past it.
    ["SIGTERM", "unshare"],
  ] as const)("leaves no test process running after %s (%s)", async (signal, isolation) => {
    const marker = `autogen-orphan-${signal}-${isolation}-${Date.now()}`;
    const scratch = await mkdtemp(join(tmpdir(), "autogen-signal-"));
    // A suite that forks a long sleeper in its own session and then hangs itself.
    const repo = await gitRepo({
      "test_hang.py": `import os, subprocess, sys, time
def test_hangs():
    subprocess.Popen([sys.executable, "-c", "import time; time.sleep(300)", "${marker}"], start_new_session=True)
    time.sleep(300)
`,
    });
    const child = spawn(process.execPath, [join(ROOT, "bin/autogen.js"), "fix", repo, "--strategy", "template"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: scratch, AUTOGEN_ISOLATION: isolation },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The sleeper runs in the sandbox, in a session of its own (on a machine at load 19 the run took over 60 s to reach it).
    expect(await waitFor(() => processesWith(marker).length > 0, 150_000)).toBe(true);
    child.kill(signal);
    const code = await exited;
    expect(code).toBe(signal === "SIGTERM" ? 143 : 130);
    expect(await waitFor(() => processesWith(marker).length === 0, 5_000)).toBe(true);
  });
});
