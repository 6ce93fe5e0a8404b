// Shared machinery of the red-team suite (test/security/*.test.ts) and its bench
// (scripts/bench-redteam.ts): canary secrets and every encoded form of them, a sentinel
// tree outside the worktree hashed before and after, a loot directory where anything that
// escaped leaves its mark, hostile repositories built from the attack libraries in
// ./assets, and the real `autogen` CLI run as a child process with the canaries in its
// environment.
import { execFile, execFileSync, spawn } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  symlinkSync,
  writeFileSync,
} from "node:fs";
import { createServer, type Server } from "node:net";
import { networkInterfaces, tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { fileURLToPath } from "node:url";

export const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const ASSETS = fileURLToPath(new URL("./assets/", import.meta.url));

// ---------------------------------------------------------------- canaries

export type Canaries = {
  OPENAI_API_KEY: string;
  GITHUB_TOKEN: string;
  WEBHOOK_SECRET: string;
  PRIVATE_KEY: string;
  INSTALLATION_TOKEN: string;
};

const alnum = (n: number) =>
  randomBytes(n * 2)
    .toString("base64")
    .replace(/[^A-Za-z0-9]/g, "")
    .slice(0, n);

/** Unique per run; alphanumeric so that every encoding below is exact. */
export function makeCanaries(): Canaries {
  return {
    OPENAI_API_KEY: `sk-RTCANARYopenai${alnum(24)}`,
    GITHUB_TOKEN: `ghp_RTCANARYgithub${alnum(22)}`,
    WEBHOOK_SECRET: `RTCANARYwebhook${alnum(24)}`,
    PRIVATE_KEY: `RTCANARYprivatekey${alnum(24)}`,
    INSTALLATION_TOKEN: `ghs_RTCANARYinstall${alnum(21)}`,
  };
}

/** The bot's secrets as its process environment would hold them (the installation token is the App's, not an env var). */
export function canaryEnv(c: Canaries): Record<string, string> {
  return {
    OPENAI_API_KEY: c.OPENAI_API_KEY,
    GITHUB_TOKEN: c.GITHUB_TOKEN,
    WEBHOOK_SECRET: c.WEBHOOK_SECRET,
    PRIVATE_KEY: c.PRIVATE_KEY,
  };
}

/** Every form a secret travels in: raw, hex, reversed, base64 at all three offsets (and url-safe), inside an `Authorization: Basic` header. */
export function canaryForms(secret: string): Array<{ form: string; text: string }> {
  const forms = [
    { form: "raw", text: secret },
    { form: "hex", text: Buffer.from(secret).toString("hex") },
    { form: "HEX", text: Buffer.from(secret).toString("hex").toUpperCase() },
    { form: "reversed", text: [...secret].reverse().join("") },
    { form: "urlencoded", text: encodeURIComponent(secret) },
  ];
  for (let offset = 0; offset < 3; offset++) {
    const b64 = Buffer.concat([Buffer.alloc(offset, 0x41), Buffer.from(secret)]).toString("base64");
    // Characters touched by the bytes before and after depend on the context: keep the core.
    const core = b64.slice(offset === 0 ? 0 : 4, -4);
    forms.push({ form: `base64@${offset}`, text: core });
    forms.push({ form: `base64url@${offset}`, text: core.replaceAll("+", "-").replaceAll("/", "_") });
  }
  return forms;
}

/** Names of the canaries found in `text`, with the form, also across line breaks and JSON escapes. */
export function findCanaries(text: string, canaries: Canaries): string[] {
  const squeezed = text.replace(/\\[nr]|\s+/g, "");
  const found: string[] = [];
  for (const [name, secret] of Object.entries(canaries)) {
    for (const { form, text: needle } of canaryForms(secret)) {
      if (text.includes(needle)) found.push(`${name} (${form})`);
      else if (squeezed.includes(needle)) found.push(`${name} (${form}, split across lines)`);
    }
  }
  return [...new Set(found)];
}

/** Every file under `dir` (symlinks not followed) with the canaries it holds. */
export function canariesInTree(dir: string, canaries: Canaries): string[] {
  const out: string[] = [];
  for (const [path, content] of walk(dir)) {
    const hits = findCanaries(content.toString("latin1"), canaries);
    if (hits.length) out.push(`${relative(dir, path) || path}: ${hits.join(", ")}`);
  }
  return out;
}

function* walk(dir: string): Generator<[string, Buffer]> {
  if (!existsSync(dir)) return;
  const stat = lstatSync(dir);
  if (stat.isFile()) {
    yield [dir, readFileSync(dir)];
    return;
  }
  if (!stat.isDirectory()) return;
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (!s) continue;
    if (s.isDirectory()) yield* walk(path);
    else if (s.isFile() && s.size < 64 * 1024 * 1024) yield [path, readFileSync(path)];
  }
}

// ---------------------------------------------------------------- trees

/** Path → type, mode, content hash and mtime of everything under `dir` (symlinks as their target): a write that restores the bytes still shows. */
export function hashTree(dir: string, skip: (rel: string) => boolean = () => false): Map<string, string> {
  const out = new Map<string, string>();
  const visit = (path: string) => {
    const rel = relative(dir, path);
    if (rel && skip(rel)) return;
    const s = lstatSync(path, { throwIfNoEntry: false });
    if (!s) return;
    if (s.isSymbolicLink()) out.set(rel, `link ${readlinkSync(path)}`);
    else if (s.isDirectory()) {
      out.set(rel || ".", `dir ${(s.mode & 0o7777).toString(8)}`);
      for (const entry of readdirSync(path)) visit(join(path, entry));
    } else
      out.set(
        rel,
        `file ${(s.mode & 0o7777).toString(8)} ${createHash("sha256").update(readFileSync(path)).digest("hex")} mtime ${s.mtimeMs}`,
      );
  };
  visit(dir);
  return out;
}

export function treeChanges(before: Map<string, string>, after: Map<string, string>): string[] {
  const changes: string[] = [];
  for (const [path, h] of after)
    if (!before.has(path)) changes.push(`added ${path}`);
    else if (before.get(path) !== h) changes.push(`changed ${path}`);
  for (const path of before.keys()) if (!after.has(path)) changes.push(`removed ${path}`);
  return changes.sort();
}

// ---------------------------------------------------------------- context

export type Context = {
  id: string;
  root: string;
  /** Files a test must never change (hashed before and after). */
  sentinel: string;
  /** The bot's HOME: .bashrc must stay as it is, the data dir inside it must stay hidden. */
  home: string;
  dataDir: string;
  /** Where anything that escaped (hooks, programs, daemons, writes outside) leaves a mark. */
  loot: string;
  /** A bare repository an attacker would like the bot's push to go to. */
  attackerRemote: string;
  canaries: Canaries;
  host: HostListener;
};

export type HostListener = { ip: string; port: number; server: Server };

/** A TCP server on every interface, answering "RT-EGRESS-OK": reachable from the host at its non-loopback address. */
export async function hostListener(): Promise<HostListener> {
  const ip = Object.values(networkInterfaces())
    .flat()
    .find((a) => a && a.family === "IPv4" && !a.internal)?.address;
  if (!ip) throw new Error("this machine has no non-loopback IPv4 address to test egress against");
  const server = createServer((socket) => socket.end("RT-EGRESS-OK\n"));
  await new Promise<void>((resolve) => server.listen(0, "0.0.0.0", resolve));
  return { ip, port: (server.address() as { port: number }).port, server };
}

export function newContext(label: string, canaries: Canaries, host: HostListener): Context {
  const id = `${label}-${randomBytes(4).toString("hex")}`;
  const root = join(tmpdir(), `autogen-redteam-${id}`);
  const sentinel = join(root, "sentinel");
  const home = join(root, "home");
  const dataDir = join(home, ".local", "share", "autogen-bot");
  const loot = join(root, "loot");
  for (const dir of [sentinel, join(sentinel, "sub"), home, dataDir, loot]) mkdirSync(dir, { recursive: true });
  writeFileSync(join(sentinel, "victim.txt"), "the sentinel: must stay byte-identical\n");
  writeFileSync(join(sentinel, "sub", "deep.txt"), "deeper sentinel\n");
  writeFileSync(join(home, ".bashrc"), "# the bot's own .bashrc\n");
  // A secret at rest in the bot's data dir (as a database or a cached token would be).
  writeFileSync(join(dataDir, "rt-secret.txt"), `cached credential ${canaries.WEBHOOK_SECRET}\n`);
  const attackerRemote = join(root, "attacker.git");
  execFileSync("git", ["init", "--quiet", "--bare", attackerRemote]);
  chmodSync(loot, 0o777);
  return { id, root, sentinel, home, dataDir, loot, attackerRemote, canaries, host };
}

/** Removes a context's trees (RT_KEEP=1 keeps them, to look at what a run left). */
export function removeContext(ctx: Context): void {
  if (process.env.RT_KEEP === "1") return;
  rmSync(ctx.root, { recursive: true, force: true });
  for (const name of readdirSync("/tmp").filter((n) => n.startsWith(`rt-${ctx.id}-`)))
    rmSync(join("/tmp", name), { recursive: true, force: true });
}

// ---------------------------------------------------------------- repositories

export type RepoSpec = {
  files: Record<string, string>;
  source: string;
  pushUrl?: string;
  /** path → absolute target */ links?: Record<string, string>;
};

export function asset(name: string): string {
  return readFileSync(join(ASSETS, name), "utf8");
}

/** Writes the repository (with rtconf.json baked in) and commits it on main: the user's checkout. */
export function buildRepo(ctx: Context, name: string, spec: RepoSpec): string {
  const repo = join(ctx.root, name);
  const conf = {
    id: ctx.id,
    sentinel: ctx.sentinel,
    home: ctx.home,
    data_dir: ctx.dataDir,
    loot: ctx.loot,
    repo,
    source: spec.source,
    host_ip: ctx.host.ip,
    host_port: ctx.host.port,
    attacker_remote: ctx.attackerRemote,
    push_url: spec.pushUrl ?? join(ctx.root, "remote.git"),
  };
  const files = {
    ...spec.files,
    "rtconf.json": `${JSON.stringify(conf, null, 2)}\n`,
    ".gitignore": "build/\nnode_modules/\n__pycache__/\n",
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(repo, path)), { recursive: true });
    writeFileSync(join(repo, path), text);
  }
  for (const [path, target] of Object.entries(spec.links ?? {})) symlinkSync(target, join(repo, path));
  const git = (...args: string[]) =>
    execFileSync("git", ["-c", "core.hooksPath=/dev/null", ...args], {
      cwd: repo,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: ctx.home, GIT_CONFIG_NOSYSTEM: "1" },
    });
  git("init", "--quiet", "--initial-branch=main");
  git("add", "--all");
  git(
    "-c",
    "user.name=Hostile",
    "-c",
    "user.email=hostile@example.invalid",
    "commit",
    "--quiet",
    "--message",
    "a repository with a bug",
  );
  return repo;
}

// ---------------------------------------------------------------- running the CLI

export type CliRun = { code: number | null; signal: string | null; stdout: string; stderr: string; ms: number };

/** The installed CLI (`bin/autogen.js`) as a child process: the bot's secrets in its environment, HOME the context's. */
export function runAutogen(ctx: Context, args: string[], timeoutMs = 240_000): Promise<CliRun> {
  const started = Date.now();
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? "/usr/bin:/bin",
    HOME: ctx.home,
    LANG: "C.UTF-8",
    ...canaryEnv(ctx.canaries),
    // An endpoint key without a base URL would make the CLI talk to OpenAI: the template strategy is forced.
    ...(process.env.AUTOGEN_ISOLATION ? { AUTOGEN_ISOLATION: process.env.AUTOGEN_ISOLATION } : {}),
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [join(ROOT, "bin", "autogen.js"), ...args],
      { env, cwd: ctx.root, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024, killSignal: "SIGKILL" },
      (error, stdout, stderr) => {
        const e = error as (Error & { code?: number | string; signal?: string }) | null;
        resolve({
          code: e ? (typeof e.code === "number" ? e.code : null) : 0,
          signal: e?.signal ?? null,
          stdout,
          stderr,
          ms: Date.now() - started,
        });
      },
    );
  });
}

// ---------------------------------------------------------------- evidence

export type Evidence = Record<string, unknown> & { attack: string; pid: number };

/** The attacks' reports (RTEV:<attack>:<hex JSON>) wherever they appear in `text`. */
export function evidenceIn(text: string): Evidence[] {
  const out: Evidence[] = [];
  for (const m of text.matchAll(/RTEV:([\w-]+):([0-9a-f]+)/g)) {
    try {
      out.push(JSON.parse(Buffer.from(m[2] as string, "hex").toString("utf8")) as Evidence);
    } catch {
      // truncated
    }
  }
  return out;
}

// ---------------------------------------------------------------- processes

/** Host pids whose command line carries `tag` (a planted process names itself with it). */
export function processesTagged(tag: string): number[] {
  const pids: number[] = [];
  for (const pid of readdirSync("/proc").filter((n) => /^\d+$/.test(n))) {
    if (Number(pid) === process.pid) continue;
    try {
      if (readFileSync(`/proc/${pid}/cmdline`, "latin1").includes(tag)) pids.push(Number(pid));
    } catch {
      // gone
    }
  }
  return pids;
}

/**
 * Processes carrying a tag, watched by a process of its own (a python3 loop reading /proc every 50 ms)
 * while the bot runs: a probe whose process lives only as long as one warm test is not missed when this
 * worker's event loop is busy with other scenarios' synchronous work on a loaded machine. The tag reaches
 * the watcher by its environment, never its command line, so it does not see itself; it ends
 * when stopped or when the process that started it is gone.
 */
export function watchTagged(tag: string, out: string): { stop: () => Promise<Map<number, string>> } {
  const script = [
    "import os, signal, sys, time",
    "tag, out, me, parent = os.environ['RT_TAG'], os.environ['RT_OUT'], str(os.getpid()), os.getppid()",
    "signal.signal(signal.SIGTERM, lambda *a: sys.exit(0))",
    "seen = set()",
    "with open(out, 'a') as f:",
    // Ends with the worker that started it (a file stopped by its hook's timeout never calls stop()).
    "    while os.getppid() == parent:",
    "        for pid in os.listdir('/proc'):",
    "            if not pid.isdigit() or pid == me or pid in seen:",
    "                continue",
    "            try:",
    "                cmd = open('/proc/%s/cmdline' % pid, 'rb').read().decode('latin1').replace('\\0', ' ')",
    "            except OSError:",
    "                continue",
    "            if tag in cmd:",
    "                seen.add(pid)",
    "                f.write('%s\\t%s\\n' % (pid, cmd.replace('\\n', ' ')))",
    "                f.flush()",
    "        time.sleep(0.05)",
  ].join("\n");
  writeFileSync(out, "");
  const child = spawn("python3", ["-c", script], {
    env: { ...process.env, RT_TAG: tag, RT_OUT: out },
    stdio: "ignore",
  });
  const exited = new Promise<void>((resolve) => {
    child.once("exit", () => resolve());
    child.once("error", () => resolve());
  });
  return {
    async stop() {
      child.kill("SIGTERM");
      await exited;
      const seen = new Map<number, string>();
      for (const line of readFileSync(out, "utf8").split("\n")) {
        const [pid, cmdline] = line.split("\t");
        if (pid && cmdline?.includes(tag)) seen.set(Number(pid), cmdline);
      }
      return seen;
    },
  };
}

/** Ends what a run left behind (only processes carrying this run's tag). */
export function killTagged(tag: string): void {
  for (const pid of processesTagged(tag)) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // gone
    }
  }
}

export function lootFiles(ctx: Context): string[] {
  return existsSync(ctx.loot) ? readdirSync(ctx.loot).sort() : [];
}

export function tmpPlanted(ctx: Context): string[] {
  return readdirSync("/tmp").filter((n) => n.startsWith(`rt-${ctx.id}-`));
}

/** The isolation the sandbox will choose here (the product's own detection). */
export async function isolationLevel(): Promise<string> {
  const { detectIsolation } = await import("../../../src/verify/sandbox/detect-isolation.ts");
  const choice = await detectIsolation();
  return "isolation" in choice ? choice.isolation : `none (${choice.refused})`;
}
