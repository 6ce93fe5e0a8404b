// Caps on one sandboxed run that only a cgroup can enforce on a whole process tree: the
// number of processes alive at once (pids) and the memory the run may use (memory,
// swap included, so a run cannot push the host into swap either).
// RLIMIT_NPROC counts per user and exempts root, so when the bot runs as root (uid 0
// outside the sandbox's user namespace) only a cgroup's pids controller can cap processes;
// RLIMIT_AS is per process and counts address space that was only reserved, so only a
// memory cgroup can cap what a run's processes use together. The same cgroup also lets
// us kill every process of the run, even one that escaped the process group with setsid.
// Where no cgroup can be made, RLIMIT_NPROC and RLIMIT_AS (set by the caller through
// prlimit) are what hold: the first for a non-root bot only, the second per process.
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { randomUUID } from "node:crypto";

export type ProcessLimit = {
  /** Wraps argv so the first process joins the cgroups before it runs anything. */
  enter(argv: string[]): string[];
  /** How often a fork was refused for the limit. */
  refusals(): Promise<number>;
  /** How many processes the kernel killed for going over the memory limit (0 without a memory cgroup). */
  oomKills(): Promise<number>;
  /** Kills every process still in the cgroups. */
  killAll(): Promise<void>;
  remove(): Promise<void>;
  kind: "cgroup-v1" | "cgroup-v2";
  /** Whether the memory limit is held by a cgroup (else the caller falls back to RLIMIT_AS). */
  memory: boolean;
};

export type CgroupLimits = { processes: number; memoryBytes?: number | undefined };

const V1 = "/sys/fs/cgroup";
const V2 = "/sys/fs/cgroup";

let v2Ready: boolean | undefined;

/** A cgroup (v2) or one per controller (v1) for one run, or undefined where this host lets us make none. */
export async function createProcessLimit(limits: CgroupLimits): Promise<ProcessLimit | undefined> {
  if (process.getuid?.() !== 0 || process.env.AUTOGEN_SANDBOX_CGROUP === "off") return undefined;
  try {
    if (existsSync(join(V1, "pids", "cgroup.procs")) || existsSync(join(V1, "memory", "cgroup.procs")))
      return await makeV1(limits);
    if (await v2Usable()) return await makeV2(limits);
  } catch {
    // Read-only cgroup file system (a container): fall back to the rlimits.
  }
  return undefined;
}

type Group = { dir: string; controller: "pids" | "memory" | "unified" };

async function makeV2(limits: CgroupLimits): Promise<ProcessLimit> {
  const parent = join(V2, "autogen");
  await mkdir(parent, { recursive: true });
  await writeFile(join(parent, "cgroup.subtree_control"), "+pids").catch(() => undefined);
  if (limits.memoryBytes) await writeFile(join(parent, "cgroup.subtree_control"), "+memory").catch(() => undefined);
  const dir = join(parent, `run-${randomUUID()}`);
  await mkdir(dir);
  try {
    await writeFile(join(dir, "pids.max"), String(limits.processes));
    let memory = false;
    if (limits.memoryBytes && existsSync(join(dir, "memory.max"))) {
      await writeFile(join(dir, "memory.max"), String(limits.memoryBytes));
      await writeFile(join(dir, "memory.swap.max"), "0").catch(() => undefined);
      // One process over the limit ends the whole run, not just the one the kernel picked.
      await writeFile(join(dir, "memory.oom.group"), "1").catch(() => undefined);
      memory = true;
    }
    return handle([{ dir, controller: "unified" }], "cgroup-v2", memory);
  } catch (error) {
    await rmdir(dir).catch(() => undefined);
    throw error;
  }
}

/** cgroup v1: a group per controller, each made only where that controller lets us. */
async function makeV1(limits: CgroupLimits): Promise<ProcessLimit | undefined> {
  const groups: Group[] = [];
  const name = `run-${randomUUID()}`;
  const pids = await makeV1Group("pids", name, { "pids.max": String(limits.processes) });
  if (pids) groups.push(pids);
  let memory = false;
  if (limits.memoryBytes) {
    const bytes = String(limits.memoryBytes);
    // memsw (memory plus swap) is written after the memory limit: the kernel wants memsw >= memory.
    const group = await makeV1Group(
      "memory",
      name,
      { "memory.limit_in_bytes": bytes, "memory.memsw.limit_in_bytes": bytes, "memory.swappiness": "0" },
      ["memory.limit_in_bytes"],
    );
    if (group) {
      groups.push(group);
      memory = true;
    }
  }
  return groups.length > 0 ? handle(groups, "cgroup-v1", memory) : undefined;
}

async function makeV1Group(
  controller: "pids" | "memory",
  name: string,
  settings: Record<string, string>,
  required = Object.keys(settings),
): Promise<Group | undefined> {
  const dir = join(V1, controller, "autogen", name);
  try {
    await mkdir(dir, { recursive: true });
    for (const [file, value] of Object.entries(settings)) {
      try {
        await writeFile(join(dir, file), value);
      } catch (error) {
        if (required.includes(file)) throw error;
      }
    }
    return { dir, controller };
  } catch {
    await rmdir(dir).catch(() => undefined);
    return undefined;
  }
}

function handle(groups: Group[], kind: ProcessLimit["kind"], memory: boolean): ProcessLimit {
  const procsFiles = groups.map((g) => join(g.dir, "cgroup.procs"));
  const members = async () => {
    const all = await Promise.all(procsFiles.map((f) => readFile(f, "utf8").catch(() => "")));
    return [...new Set(all.join("\n").split("\n").filter(Boolean).map(Number))];
  };
  const pidsDir = groups.find((g) => g.controller !== "memory")?.dir;
  const memoryDir = groups.find((g) => g.controller !== "pids")?.dir;
  return {
    kind,
    memory,
    // The script is a constant; the files and the command arrive as arguments, never as script text.
    enter: (argv) => [
      "/bin/sh",
      "-c",
      'for f do [ "$f" = -- ] && break; echo $$ > "$f" || exit 125; shift; done; shift; exec "$@"',
      "autogen-cgroup",
      ...procsFiles,
      "--",
      ...argv,
    ],
    async refusals() {
      if (!pidsDir) return 0;
      const events = await readFile(join(pidsDir, "pids.events"), "utf8").catch(() => "");
      return Number(/^max (\d+)/m.exec(events)?.[1] ?? 0);
    },
    async oomKills() {
      if (!memory || !memoryDir) return 0;
      // v2: memory.events; v1: memory.oom_control (oom_kill since Linux 4.13).
      const file = kind === "cgroup-v2" ? "memory.events" : "memory.oom_control";
      const text = await readFile(join(memoryDir, file), "utf8").catch(() => "");
      return Number(/^oom_kill (\d+)/m.exec(text)?.[1] ?? 0);
    },
    async killAll() {
      const unified = groups.find((g) => g.controller === "unified");
      if (unified && existsSync(join(unified.dir, "cgroup.kill"))) {
        await writeFile(join(unified.dir, "cgroup.kill"), "1").catch(() => undefined);
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
      for (const { dir } of groups) {
        for (let round = 0; round < 40; round++) {
          try {
            await rmdir(dir);
            break;
          } catch {
            await new Promise((resolve) => setTimeout(resolve, 25));
          }
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
