// `autogen fix` killed with SIGKILL (no handler can run) mid-run leaves no process of
// the run behind, on both sandbox backends: bwrap's --die-with-parent and setpriv's
// parent-death signal carry the bot's death down to every process it started.
import { spawn } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../support/git-repo.ts";
import { ROOT } from "../support/run-cli.ts";

type Proc = { pid: number; ppid: number; start: string; cmdline: string };

function processes(): Proc[] {
  const found: Proc[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, "utf8");
      // Fields after the command name, which is in parentheses and may hold spaces.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, "utf8").replaceAll("\0", " ");
      found.push({ pid: Number(entry), ppid: Number(fields[1]), start: fields[19] ?? "", cmdline });
    } catch {
      // gone
    }
  }
  return found;
}

/** The process and every descendant of it now, each with its start time (pids are reused). */
function tree(root: number): Proc[] {
  const all = processes();
  const out = all.filter((p) => p.pid === root);
  for (let i = 0; i < out.length; i++) out.push(...all.filter((p) => p.ppid === (out[i] as Proc).pid));
  return out;
}

function stillAlive(procs: Proc[]): Proc[] {
  const now = new Map(processes().map((p) => [p.pid, p.start]));
  // A zombie has been killed; only its parent has not reaped it yet.
  return procs.filter((p) => now.get(p.pid) === p.start && !/^Z/.test(state(p.pid)));
}

function state(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2, stat.lastIndexOf(")") + 3);
  } catch {
    return "Z";
  }
}

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe("autogen fix killed with SIGKILL", () => {
  it.each(["bwrap", "unshare"] as const)("leaves no process of the run alive (%s)", async (isolation) => {
    const marker = `autogen-sigkill-${isolation}-${Date.now()}`;
    const scratch = await mkdtemp(join(tmpdir(), "autogen-sigkill-"));
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
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    let run: Proc[] = [];
    expect(
      await waitFor(() => (run = tree(child.pid as number)).some((p) => p.cmdline.includes(marker)), 150_000),
    ).toBe(true);
    // Every process between the bot and the sleeper, the sandbox tool included.
    expect(run.map((p) => p.cmdline).join("\n")).toContain(isolation);
    child.kill("SIGKILL");
    expect(await exited).toBe("SIGKILL");
    const left = await waitFor(() => stillAlive(run.slice(1)).length === 0, 10_000);
    expect(stillAlive(run.slice(1)).map((p) => p.cmdline)).toEqual([]);
    expect(left).toBe(true);
  });
});
