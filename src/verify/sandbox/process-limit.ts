// A cap on the number of processes one sandboxed run may have, enforced by the kernel.
// RLIMIT_NPROC counts per user and exempts root, so when the bot runs as root (uid 0
// outside the sandbox's user namespace) only a cgroup's pids controller can do it; the
// same cgroup also lets us kill every process of the run, even one that escaped the
// process group with setsid. Where no cgroup can be made, RLIMIT_NPROC (set by the
// caller through prlimit) is what holds, and it holds for a non-root bot only.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

export type ProcessLimit = {
  /** Wraps argv so the first process joins the cgroup before it runs anything. */
  enter(argv: string[]): string[];
  /** How often a fork was refused for the limit. */
  refusals(): Promise<number>;
  /** Kills every process still in the cgroup. */
  killAll(): Promise<void>;
  remove(): Promise<void>;
  kind: "cgroup-v1" | "cgroup-v2";
};

const V1 = "/sys/fs/cgroup/pids";
const V2 = "/sys/fs/cgroup";

let v2Ready: boolean | undefined;

/** A pids cgroup for one run, or undefined where this host lets us make none. */
export async function createProcessLimit(max: number): Promise<ProcessLimit | undefined> {
  if (process.getuid?.() !== 0 || process.env.AUTOGEN_SANDBOX_CGROUP === "off") return undefined;
  try {
    if (existsSync(join(V1, "pids.max")) || existsSync(join(V1, "cgroup.procs"))) return await make(join(V1, "autogen"), max, "cgroup-v1");
    if (await v2Usable()) return await make(join(V2, "autogen"), max, "cgroup-v2");
  } catch {
    // Read-only cgroup file system (a container): fall back to RLIMIT_NPROC.
  }
  return undefined;
}

async function make(parent: string, max: number, kind: ProcessLimit["kind"]): Promise<ProcessLimit> {
  await mkdir(parent, { recursive: true });
  if (kind === "cgroup-v2") await writeFile(join(parent, "cgroup.subtree_control"), "+pids").catch(() => undefined);
  const dir = join(parent, `run-${randomUUID()}`);
  await mkdir(dir);
  await writeFile(join(dir, "pids.max"), String(max));
  const procs = join(dir, "cgroup.procs");
  const members = async () => (await readFile(procs, "utf8").catch(() => "")).split("\n").filter(Boolean).map(Number);
  return {
    kind,
    // The script is a constant; the file and the command arrive as arguments, never as script text.
    enter: (argv) => ["/bin/sh", "-c", 'echo $$ > "$1" && shift && exec "$@"', "autogen-cgroup", procs, ...argv],
    async refusals() {
      const events = await readFile(join(dir, "pids.events"), "utf8").catch(() => "");
      return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0);
    },
    async killAll() {
      if (kind === "cgroup-v2" && existsSync(join(dir, "cgroup.kill"))) {
        await writeFile(join(dir, "cgroup.kill"), "1").catch(() => undefined);
        return;
      }
      // A fork racing the kill joins the cgroup too: repeat until it is empty.
      for (let round = 0; round < 20; round++) {
        const pids = await members();
        if (pids.length === 0) return;
        for (const pid of pids) {
          try {
            process.kill(pid, "SIGKILL");
          } catch {
            // already gone
          }
        }
        await new Promise((resolve) => setTimeout(resolve, 25));
      }
    },
    async remove() {
      for (let round = 0; round < 40; round++) {
        try {
          await rmdir(dir);
          return;
        } catch {
          await new Promise((resolve) => setTimeout(resolve, 25));
        }
      }
    },
  };
}

async function v2Usable(): Promise<boolean> {
  if (v2Ready !== undefined) return v2Ready;
  try {
    const controllers = readFileSync(join(V2, "cgroup.controllers"), "utf8");
    // Only directly below the root may a cgroup with processes delegate controllers.
    v2Ready = controllers.split(/\s+/).includes("pids") && readFileSync("/proc/self/cgroup", "utf8").trim() === "0::/";
  } catch {
    v2Ready = false;
  }
  return v2Ready;
}
