// Red team, memory: a hostile repository whose test allocates and touches 6 GiB (a
// Python bytearray filled page by page; a Node variant with Buffers), with the test run's
// memory limit lowered to 256 MiB in its own config to keep the attack cheap. Through the
// real `autogen fix` CLI as a child process; while it runs, the resident memory of the
// bot's whole process tree (the CLI, the sandbox, the tests) is sampled from /proc, so the
// figure is this run's alone and not the shared machine's. Shared by
// test/security/redteam-memory.test.ts and scripts/bench-redteam.ts.
import { execFile } from "node:child_process";
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import {
  buildRepo,
  canaryEnv,
  newContext,
  removeContext,
  ROOT,
  type Canaries,
  type HostListener,
  type RepoSpec,
} from "./redteam.ts";
import type { AttackResult, Scenario } from "./scenarios.ts";

const LIMIT_MB = 256;
const GIB = 1024 ** 3;
/** What the bot's own processes (the CLI's node, the sandbox, pytest or node --test) may hold beside the limited run. */
const SLACK_BYTES = 1 * GIB;
/** Without a memory cgroup the limit is an address-space limit per process, never below 2 GiB (run-sandboxed.ts). */
const RLIMIT_FLOOR = 2 * GIB;
const CONFIG = `test:\n  limits:\n    memoryMegabytes: ${LIMIT_MB}\n`;

const PY_HOG = [
  "import time",
  "",
  "CHUNK = 64 * 1024 * 1024",
  "held = []",
  "for _ in range(96):  # 6 GiB",
  "    b = bytearray(CHUNK)",
  "    for i in range(0, CHUNK, 4096):",
  "        b[i] = 1",
  "    held.append(b)",
  "time.sleep(2)",
  "",
].join("\n");

const JS_HOG = [
  "const held = [];",
  "for (let i = 0; i < 24; i++) held.push(Buffer.allocUnsafeSlow(256 * 1024 * 1024).fill(i + 1)); // 6 GiB",
  "const until = Date.now() + 2000;",
  "while (Date.now() < until);",
  "",
].join("\n");

function pyMemoryHog(): RepoSpec {
  return {
    source: "calc.py",
    files: {
      ".github/autogen.yml": CONFIG,
      "calc.py": "def add(a, b):\n    return a - b\n",
      "tests/__init__.py": "",
      "tests/test_calc.py": "from calc import add\n\n\ndef test_add():\n    assert add(2, 3) == 5\n",
      // Runs at collection, in every run of the tests.
      "conftest.py": PY_HOG,
    },
  };
}

function jsMemoryHog(): RepoSpec {
  return {
    source: "calc.js",
    files: {
      ".github/autogen.yml": CONFIG,
      "package.json": '{ "name": "memhog", "private": true, "scripts": { "test": "node --test" } }\n',
      "calc.js": "function add(a, b) {\n  return a - b;\n}\n\nmodule.exports = { add };\n",
      "test/calc.test.js": `const test = require("node:test");\nconst assert = require("node:assert");\nconst { add } = require("../calc.js");\n\n${JS_HOG}\ntest("adds", () => {\n  assert.strictEqual(add(2, 3), 5);\n});\n`,
    },
  };
}

/** Resident bytes of `root` and every process below it, from /proc (host pids: the sandbox's own PID namespace does not hide them from us). */
export function treeRss(root: number): number {
  const parent = new Map<number, number>();
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const stat = readFileSync(`/proc/${name}/stat`, "utf8");
      parent.set(Number(name), Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]));
    } catch {
      // gone
    }
  }
  const inTree = (pid: number) => {
    for (let p: number | undefined = pid, hops = 0; p !== undefined && p > 1 && hops < 64; p = parent.get(p), hops++)
      if (p === root) return true;
    return false;
  };
  let bytes = 0;
  for (const pid of parent.keys()) {
    if (!inTree(pid)) continue;
    try {
      bytes += Number(readFileSync(`/proc/${pid}/statm`, "utf8").split(" ")[1]) * 4096;
    } catch {
      // gone
    }
  }
  return bytes;
}

type HogRun = { code: number | null; said: string; peakBytes: number; availableDrop: number; ms: number };

function memAvailable(): number {
  return Number(/MemAvailable:\s+(\d+)/.exec(readFileSync("/proc/meminfo", "utf8"))?.[1] ?? 0) * 1024;
}

function runHog(repo: string, home: string, canaries: Canaries, cwd: string): Promise<HogRun> {
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: home,
    LANG: "C.UTF-8",
    ...canaryEnv(canaries),
    ...(process.env.AUTOGEN_ISOLATION ? { AUTOGEN_ISOLATION: process.env.AUTOGEN_ISOLATION } : {}),
    ...(process.env.AUTOGEN_SANDBOX_CGROUP ? { AUTOGEN_SANDBOX_CGROUP: process.env.AUTOGEN_SANDBOX_CGROUP } : {}),
  };
  const started = Date.now();
  const baseline = memAvailable();
  let peakBytes = 0;
  let lowest = baseline;
  return new Promise((resolve) => {
    const child = execFile(
      process.execPath,
      [join(ROOT, "bin", "autogen.js"), "fix", repo, "--strategy", "template", "--candidates", "4", "--minutes", "3"],
      { env, cwd, timeout: 240_000, maxBuffer: 16 * 1024 * 1024, killSignal: "SIGKILL" },
      (error, stdout, stderr) => {
        clearInterval(sampler);
        const e = error as (Error & { code?: number | string }) | null;
        resolve({
          code: e ? (typeof e.code === "number" ? e.code : null) : 0,
          said: `${stdout}\n${stderr}`,
          peakBytes,
          availableDrop: baseline - lowest,
          ms: Date.now() - started,
        });
      },
    );
    const sampler = setInterval(() => {
      if (child.pid !== undefined) peakBytes = Math.max(peakBytes, treeRss(child.pid));
      lowest = Math.min(lowest, memAvailable());
    }, 50);
  });
}

const gib = (bytes: number) => `${(bytes / GIB).toFixed(2)} GiB`;

async function memoryCli(kind: "py" | "js", canaries: Canaries, host: HostListener): Promise<AttackResult[]> {
  const path = `cli ${kind}`;
  const ctx = newContext(`memory-${kind}`, canaries, host);
  try {
    const repo = buildRepo(ctx, "checkout", kind === "py" ? pyMemoryHog() : jsMemoryHog());
    const run = await runHog(repo, ctx.home, canaries, ctx.root);
    const cgroup = process.env.AUTOGEN_SANDBOX_CGROUP !== "off";
    const bound = (cgroup ? LIMIT_MB * 1024 ** 2 : RLIMIT_FLOOR) + SLACK_BYTES;
    const named = /used more than (256 MiB|2 GiB), the test run's memory limit/.test(run.said);
    const line =
      run.said.split("\n").find((l) => l.includes("memory limit")) ?? run.said.trim().split("\n").at(-1) ?? "";
    const figures = `bot's process tree peaked at ${gib(run.peakBytes)} (bound ${gib(bound)}); machine MemAvailable fell by up to ${gib(run.availableDrop)}; ${Math.round(run.ms / 1000)} s`;
    return [
      {
        attack: "a test touching 6 GiB stays within the test run's memory limit",
        path,
        held: run.peakBytes > 0 && run.peakBytes <= bound,
        detail: figures,
      },
      {
        attack: "a test touching 6 GiB: the bot names the memory limit",
        path,
        held: named,
        detail: `exit ${String(run.code)}: ${line.trim().slice(0, 240)}`,
      },
    ];
  } finally {
    removeContext(ctx);
  }
}

export const MEMORY_SCENARIOS: Scenario[] = [
  { name: "memory hog (python)", run: (c, h) => memoryCli("py", c, h) },
  { name: "memory hog (javascript)", run: (c, h) => memoryCli("js", c, h) },
];

export const MEMORY_ATTACKS: Array<[string, string]> = ["py", "js"].flatMap((kind): Array<[string, string]> => [
  [`cli ${kind}`, "a test touching 6 GiB stays within the test run's memory limit"],
  [`cli ${kind}`, "a test touching 6 GiB: the bot names the memory limit"],
]);
