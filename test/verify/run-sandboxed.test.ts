// Canary tests: the sandbox against a deliberately hostile "test suite".
import { execFileSync } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { copyFile, mkdir, mkdtemp, readFile } from "node:fs/promises";
import { createServer, type Server } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectIsolation } from "../../src/verify/sandbox/detect-isolation.ts";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";
import { sandboxEnv } from "../../src/verify/sandbox/sandbox-env.ts";

const HOSTILE = fileURLToPath(new URL("../fixtures/repos/hostile/", import.meta.url));
const SECRET = "ghs_canarySecretValue1234567890abcdef";
const choice = await detectIsolation();
const isolation = "isolation" in choice ? choice.isolation : "refused";

describe("sandbox environment", () => {
  it("passes an allowlist only: a secret in the bot's environment is absent from the child's env, /proc/self/environ and HOME", async () => {
    process.env.AUTOGEN_CANARY_TOKEN = SECRET;
    process.env.GITHUB_TOKEN = SECRET;
    try {
      const result = await runSandboxed(["python3", "leak_secrets.py", SECRET], { cwd: HOSTILE, timeoutMs: 20_000 });
      expect(result.output).toContain("CLEAN");
      expect(result.output).not.toContain(SECRET);
      expect(result.output).toMatch(/HOME=\/.*autogen-home-/);
    } finally {
      delete process.env.AUTOGEN_CANARY_TOKEN;
      delete process.env.GITHUB_TOKEN;
    }
  });

  it("refuses repository-configured variables that would change what runs or carry secrets", () => {
    expect(() => sandboxEnv({ home: "/tmp/h", extra: { LD_PRELOAD: "/evil.so" } })).toThrow("LD_PRELOAD cannot be set");
    expect(() => sandboxEnv({ home: "/tmp/h", extra: { NODE_OPTIONS: "--require x" } })).toThrow(
      "NODE_OPTIONS cannot be set",
    );
    expect(() => sandboxEnv({ home: "/tmp/h", extra: { MY_API_TOKEN: "x" } })).toThrow("MY_API_TOKEN cannot be set");
    expect(
      sandboxEnv({ home: "/tmp/h", extra: { FEATURE_FLAG: "1" }, parent: { PATH: "/bin", SECRET_THING: "s" } }),
    ).toEqual({
      PATH: "/bin",
      LANG: "C.UTF-8",
      HOME: "/tmp/h",
      TMPDIR: "/tmp/h",
      CI: "true",
      NO_COLOR: "1",
      PYTHONDONTWRITEBYTECODE: "1",
      GIT_TERMINAL_PROMPT: "0",
      FEATURE_FLAG: "1",
    });
  });

  it("sets NODE_OPTIONS only from the bot's own preload files, quoted so that node reads a path with a space", () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen preload "));
    try {
      const preload = join(dir, "own preload.cjs");
      writeFileSync(preload, 'process.stdout.write("preloaded ");');
      const env = sandboxEnv({ home: "/tmp/h", extra: { FEATURE_FLAG: "1" }, nodePreload: [preload] });
      expect(env.NODE_OPTIONS).toBe(`--require=${JSON.stringify(preload)}`);
      const out = execFileSync(process.execPath, ["-e", 'process.stdout.write("ran")'], { env, encoding: "utf8" });
      expect(out).toBe("preloaded ran");
      expect(sandboxEnv({ home: "/tmp/h" }).NODE_OPTIONS).toBeUndefined();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("says clearly when the command does not exist", async () => {
    const result = await runSandboxed(["no-such-runner-xyz", "--version"], { cwd: HOSTILE, timeoutMs: 5_000 });
    expect(result.spawnError).toMatch(/^command not found: no-such-runner-xyz \(searched PATH=/);
    expect(result.exitCode).toBeNull();
  });
});

describe("sandbox network", () => {
  let server: Server;
  let port = 0;
  beforeAll(async () => {
    server = createServer((socket) => socket.end());
    await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
    port = (server.address() as { port: number }).port;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it.runIf(isolation !== "none")(`blocks the network when it is off (isolation: ${isolation})`, async () => {
    const result = await runSandboxed(["python3", "connect.py", "127.0.0.1", String(port)], {
      cwd: HOSTILE,
      timeoutMs: 20_000,
    });
    expect(result.output).toContain("BLOCKED");
    expect(result.isolation).toBe(isolation);
  });

  it("allows the network when the configuration asks for it", async () => {
    const result = await runSandboxed(["python3", "connect.py", "127.0.0.1", String(port)], {
      cwd: HOSTILE,
      timeoutMs: 20_000,
      network: true,
    });
    expect(result.output).toContain("CONNECTED");
  });
});

describe("sandbox process control", () => {
  it("kills a hanging test that ignores SIGTERM (escalating to SIGKILL)", async () => {
    const started = Date.now();
    // Long enough for python to start and ignore SIGTERM on a busy machine (at load 14, 1 s was not:
    // the run was stopped before the script printed), so what is tested is the escalation.
    const result = await runSandboxed(["python3", "hang.py"], { cwd: HOSTILE, timeoutMs: 8_000 });
    expect(result.timedOut).toBe(true);
    expect(result.output).toContain("hanging");
    // A hang guard, not a speed check: without the escalation the script never ends.
    expect(Date.now() - started).toBeLessThan(60_000);
  });

  it.runIf(isolation !== "none")("cleans up a child that forks a daemon (in its own session) and exits", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-fork-"));
    const heartbeat = join(dir, "heartbeat");
    const started = Date.now();
    // The script is copied in: the fixture may sit under the host's /tmp, which the sandbox hides.
    await copyFile(join(HOSTILE, "fork_and_exit.py"), join(dir, "fork_and_exit.py"));
    const result = await runSandboxed(["python3", "fork_and_exit.py", heartbeat], { cwd: dir, timeoutMs: 20_000 });
    expect(result.exitCode).toBe(0);
    expect(result.output).toContain("parent exits");
    // A hang guard: the run returns when the parent exits, not when the daemon would.
    expect(Date.now() - started).toBeLessThan(60_000);
    const beats = async () => (await readFile(heartbeat, "utf8")).length;
    const first = await beats();
    await new Promise((resolve) => setTimeout(resolve, 600));
    expect(first).toBeGreaterThan(0);
    expect(await beats()).toBe(first);
  });

  it("caps captured output: 1 GB of output does not grow our memory past the cap", async () => {
    const cap = 4 * 1024 * 1024;
    const before = process.memoryUsage().rss;
    const result = await runSandboxed(["python3", "flood.py", "1024"], {
      cwd: HOSTILE,
      timeoutMs: 120_000,
      maxOutputBytes: cap,
    });
    const grown = process.memoryUsage().rss - before;
    expect(result.exitCode).toBe(0);
    expect(result.outputBytes).toBe(1024 * 1024 * 1024);
    expect(result.outputTruncated).toBe(true);
    expect(Buffer.byteLength(result.output)).toBeLessThanOrEqual(cap);
    // Uncapped, keeping 1 GB would grow us by at least 1 GB; the margin absorbs what else the
    // worker allocates meanwhile (a 96 MB margin was exceeded once, at 104 MB, on a busy machine).
    expect(grown).toBeLessThan(256 * 1024 * 1024);
  }, 150_000);
});

describe("sandbox limits", () => {
  it("stops a child that writes a file past the size limit", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-fsize-"));
    const result = await runSandboxed(["python3", "-c", "open('big', 'wb').write(b'x' * 4_000_000)"], {
      cwd: dir,
      timeoutMs: 20_000,
      limits: { fileSizeBytes: 1_000_000 },
    });
    expect(result.exitCode).not.toBe(0);
    expect(result.output).toMatch(/File too large|SIGXFSZ|Errno 27/);
  });

  it("stops a child that burns CPU past its CPU-time limit", async () => {
    const result = await runSandboxed(["python3", "-c", "while True: pass"], {
      cwd: HOSTILE,
      timeoutMs: 150_000,
      limits: { cpuSeconds: 1 },
    });
    // RLIMIT_CPU kills it (how that surfaces depends on the wrapper: a signal, 137, or
    // unshare's own error) after 1 s of CPU; without it the loop would run to the 150 s
    // wall-clock timeout. No bound on wall time: on a busy machine 1 s of CPU takes longer.
    expect(result.timedOut).toBe(false);
    expect(result.exitCode === 0).toBe(false);
  });
});

describe("sandbox filesystem", () => {
  it.runIf(isolation === "bwrap")("makes .git read-only to the tests: planting a hook fails", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-ro-"));
    await mkdir(join(repo, ".git", "hooks"), { recursive: true });
    const hook = join(repo, ".git", "hooks", "pre-commit");
    await copyFile(join(HOSTILE, "write_hook.py"), join(repo, "write_hook.py"));
    const result = await runSandboxed(["python3", "write_hook.py", hook], {
      cwd: repo,
      timeoutMs: 20_000,
      readOnlyPaths: [join(repo, ".git")],
    });
    expect(result.output).toContain("REFUSED");
    expect(existsSync(hook)).toBe(false);
  });
});
