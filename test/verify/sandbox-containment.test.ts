// The sandbox against honest and hostile test suites, at every isolation level this host
// offers: an honest suite (local servers on 127.0.0.1 and ::1, sockets, temp files,
// subprocesses, threads) passes inside exactly as outside; a hostile one finds no
// secret in /proc, writes nothing outside its workspace, and is stopped by each limit
// with a message naming it.
import { execFile } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { detectIsolation, resetIsolationProbe } from "../../src/verify/sandbox/detect-isolation.ts";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";
import type { Isolation } from "../../src/verify/test-report.ts";

const CANARY = "canary-7f3e9a1c5b2d4e6f8a0b";

/** The levels this host can run: bwrap and unshare where each works. */
async function levels(): Promise<Isolation[]> {
  const found: Isolation[] = [];
  for (const level of ["bwrap", "unshare"] as const) {
    process.env.AUTOGEN_ISOLATION = level;
    resetIsolationProbe();
    const choice = await detectIsolation();
    if ("isolation" in choice) found.push(level);
  }
  delete process.env.AUTOGEN_ISOLATION;
  resetIsolationProbe();
  return found;
}

const available = await levels();

async function withIsolation<T>(level: Isolation, run: () => Promise<T>): Promise<T> {
  process.env.AUTOGEN_ISOLATION = level;
  resetIsolationProbe();
  try {
    return await run();
  } finally {
    delete process.env.AUTOGEN_ISOLATION;
    resetIsolationProbe();
  }
}

const HONEST_TESTS = `
import os, socket, subprocess, sys, tempfile, threading, http.server, urllib.request

def test_local_http_server_ipv4():
    server = http.server.HTTPServer(("127.0.0.1", 0), http.server.SimpleHTTPRequestHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        assert urllib.request.urlopen(f"http://127.0.0.1:{server.server_port}/", timeout=5).status == 200
    finally:
        server.shutdown()

def test_local_socket_ipv6():
    listener = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    listener.bind(("::1", 0))
    listener.listen(1)
    port = listener.getsockname()[1]
    def serve():
        conn, _ = listener.accept()
        conn.sendall(conn.recv(5).upper())
        conn.close()
    t = threading.Thread(target=serve)
    t.start()
    client = socket.create_connection(("::1", port), timeout=5)
    client.sendall(b"hello")
    assert client.recv(5) == b"HELLO"
    t.join()

def test_localhost_name_resolves():
    assert socket.gethostbyname("localhost") == "127.0.0.1"

def test_temp_files():
    with tempfile.NamedTemporaryFile("w+", delete=False) as handle:
        handle.write("data")
    assert open(handle.name).read() == "data"
    os.unlink(handle.name)
    with tempfile.TemporaryDirectory() as d:
        open(os.path.join(d, "f"), "w").write("x")

def test_subprocess_and_threads():
    out = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "42"
    results = []
    threads = [threading.Thread(target=lambda i=i: results.append(i * i)) for i in range(8)]
    for t in threads: t.start()
    for t in threads: t.join()
    assert sorted(results) == [i * i for i in range(8)]

def test_workspace_writable():
    open("output.txt", "w").write("ok")
    assert open("output.txt").read() == "ok"
`;

const HONEST_NODE = `
import { test } from "node:test";
import assert from "node:assert/strict";
import { createServer } from "node:http";

test("a local HTTP server answers on 127.0.0.1 and ::1", async () => {
  for (const host of ["127.0.0.1", "::1"]) {
    const server = createServer((req, res) => res.end("pong"));
    await new Promise((resolve) => server.listen(0, host, resolve));
    const { port } = server.address();
    const url = host.includes(":") ? \`http://[\${host}]:\${port}/\` : \`http://\${host}:\${port}/\`;
    assert.equal(await (await fetch(url)).text(), "pong");
    await new Promise((resolve) => server.close(resolve));
  }
});
`;

function run(file: string, args: string[], cwd: string): Promise<{ code: number; output: string }> {
  return new Promise((resolve) => {
    execFile(
      file,
      args,
      { cwd, timeout: 60_000, env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: cwd } },
      (error, stdout, stderr) => {
        resolve({ code: error ? (typeof error.code === "number" ? error.code : 1) : 0, output: stdout + stderr });
      },
    );
  });
}

function hashTree(dir: string): string {
  const hash = createHash("sha256");
  const walk = (d: string) => {
    for (const name of readdirSync(d).sort()) {
      const path = join(d, name);
      const s = statSync(path);
      hash.update(`${path}\0${s.mode}\0`);
      if (s.isDirectory()) walk(path);
      else hash.update(readFileSync(path));
    }
  };
  walk(dir);
  return hash.digest("hex");
}

describe("an honest test suite", () => {
  let repo: string;
  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), "autogen-honest-"));
    await writeFile(join(repo, "test_honest.py"), HONEST_TESTS);
    await writeFile(join(repo, "honest.test.mjs"), HONEST_NODE);
  });
  afterAll(() => rm(repo, { recursive: true, force: true }));

  it("passes outside the sandbox (the control)", async () => {
    const outside = await run("python3", ["-m", "pytest", "-q", "-p", "no:cacheprovider", "test_honest.py"], repo);
    expect(outside.output).toContain("6 passed");
    const node = await run(process.execPath, ["--test", "honest.test.mjs"], repo);
    expect(node.output).toMatch(/(#|ℹ) pass 1\b/);
  });

  it.each(available)("passes inside the sandbox exactly as outside (%s)", async (level) => {
    await withIsolation(level, async () => {
      const python = await runSandboxed(["python3", "-m", "pytest", "-q", "-p", "no:cacheprovider", "test_honest.py"], {
        cwd: repo,
        timeoutMs: 60_000,
      });
      expect(python.isolation).toBe(level);
      expect(python.output).toContain("6 passed");
      expect(python.exitCode).toBe(0);
      const node = await runSandboxed([process.execPath, "--test", "honest.test.mjs"], {
        cwd: repo,
        timeoutMs: 60_000,
      });
      expect(node.output).toMatch(/(#|ℹ) pass 1\b/);
      expect(node.exitCode).toBe(0);
    });
  });
});

describe("a hostile test suite", () => {
  let repo: string;
  let sentinel: string;
  let before: string;
  beforeAll(async () => {
    repo = await mkdtemp(join(tmpdir(), "autogen-hostile-"));
    sentinel = await mkdtemp(join(tmpdir(), "autogen-sentinel-"));
    await mkdir(join(sentinel, "nested"));
    await writeFile(join(sentinel, "victim.py"), "print('untouched')\n");
    await writeFile(join(sentinel, "nested", "data.txt"), "sentinel\n");
    before = hashTree(sentinel);
  });
  afterAll(async () => {
    await rm(repo, { recursive: true, force: true });
    await rm(sentinel, { recursive: true, force: true });
  });

  it.each(available)("finds no secret of the bot's in any process it can see (%s)", async (level) => {
    process.env.AUTOGEN_TEST_CANARY_TOKEN = CANARY;
    await writeFile(
      join(repo, "steal.py"),
      `import glob, os
seen = []
for path in glob.glob("/proc/[0-9]*/environ") + glob.glob("/proc/[0-9]*/cmdline"):
    try:
        data = open(path, "rb").read().decode("utf8", "replace")
        seen.append(path)
        if "${CANARY.slice(0, 6)}" in data: print("FOUND", path, data)
    except Exception as e:
        print("unreadable", path, type(e).__name__)
print("pids visible:", sorted({p.split("/")[2] for p in seen}))
print("env has canary:", any("${CANARY.slice(0, 6)}" in v for v in os.environ.values()))
`,
    );
    try {
      await withIsolation(level, async () => {
        const result = await runSandboxed(["python3", "steal.py"], { cwd: repo, timeoutMs: 30_000 });
        expect(result.output).toContain("pids visible:");
        expect(result.output).toContain("env has canary: False");
        expect(result.output).not.toContain("FOUND");
        expect(result.output).not.toContain(CANARY);
        // A fresh PID namespace: only the run's own processes are there.
        const pids = JSON.parse(
          (/pids visible: (\[.*\])/.exec(result.output)?.[1] ?? "[]").replaceAll("'", '"'),
        ) as string[];
        expect(pids.length).toBeLessThanOrEqual(3);
      });
    } finally {
      delete process.env.AUTOGEN_TEST_CANARY_TOKEN;
    }
  });

  it.each(available)(
    "writes nothing outside its workspace: /tmp, the bot's home, a sentinel tree (%s)",
    async (level) => {
      const marker = `autogen-escape-${level}-${Date.now()}`;
      const home = homedir();
      await writeFile(
        join(repo, "escape.py"),
        `import os, sys
targets = [${JSON.stringify(join(sentinel, "victim.py"))}, ${JSON.stringify(join(sentinel, "nested", "new.txt"))},
           ${JSON.stringify(join(tmpdir(), marker))}, ${JSON.stringify(join(home, marker))}, "/var/tmp/${marker}", "/dev/shm/${marker}"]
for t in targets:
    try:
        with open(t, "a") as f: f.write("pwned")
        print("wrote", t)
    except Exception as e:
        print("refused", t, type(e).__name__)
try:
    os.rename(${JSON.stringify(join(sentinel, "nested"))}, ${JSON.stringify(join(sentinel, "moved"))})
    print("renamed")
except Exception as e:
    print("refused rename", type(e).__name__)
open("inside.txt", "w").write("fine")
`,
      );
      await withIsolation(level, async () => {
        const result = await runSandboxed(["python3", "escape.py"], { cwd: repo, timeoutMs: 30_000 });
        expect(result.output).toContain("refused rename");
        expect(hashTree(sentinel)).toBe(before);
        expect(existsSync(join(tmpdir(), marker))).toBe(false);
        expect(existsSync(join(home, marker))).toBe(false);
        expect(existsSync(`/var/tmp/${marker}`)).toBe(false);
        expect(existsSync(`/dev/shm/${marker}`)).toBe(false);
        expect(readFileSync(join(repo, "inside.txt"), "utf8")).toBe("fine");
      });
    },
  );

  it.each(available)("cannot reach any address beyond loopback (%s)", async (level) => {
    await writeFile(
      join(repo, "egress.py"),
      `import socket
for host in ["10.0.0.1", "192.0.2.1", "8.8.8.8"]:
    try:
        socket.create_connection((host, 80), timeout=2)
        print("CONNECTED", host)
    except OSError as e:
        print("blocked", host, e.errno)
`,
    );
    await withIsolation(level, async () => {
      const result = await runSandboxed(["python3", "egress.py"], { cwd: repo, timeoutMs: 30_000 });
      expect(result.output.match(/blocked/g)?.length).toBe(3);
      expect(result.output).not.toContain("CONNECTED");
    });
  });

  it.each(available)("is stopped by the process limit, and the result names it (%s)", async (level) => {
    await writeFile(
      join(repo, "forks.py"),
      `import os, time
children = 0
try:
    for _ in range(200):
        if os.fork() == 0:
            time.sleep(30)
            os._exit(0)
        children += 1
except OSError as e:
    print("fork refused after", children, e.errno)
`,
    );
    await withIsolation(level, async () => {
      const result = await runSandboxed(["python3", "forks.py"], {
        cwd: repo,
        timeoutMs: 30_000,
        limits: { processes: 20 },
      });
      expect(result.output).toMatch(/fork refused after \d+ 11/);
      const forked = Number(/fork refused after (\d+)/.exec(result.output)?.[1]);
      expect(forked).toBeLessThan(20);
      expect(result.limit?.name).toBe("processes");
      expect(result.limit?.message).toContain("process limit (20 processes at once)");
    });
  });

  it.each(available)("is stopped by the disk limit across many files, and the result names it (%s)", async (level) => {
    await writeFile(
      join(repo, "flood_disk.py"),
      `import os, time
os.makedirs("flood", exist_ok=True)
for i in range(400):
    with open(f"flood/{i}.bin", "wb") as f: f.write(os.urandom(1 << 20))
    time.sleep(0.01)
print("wrote everything")
`,
    );
    await withIsolation(level, async () => {
      const result = await runSandboxed(["python3", "flood_disk.py"], {
        cwd: repo,
        timeoutMs: 60_000,
        limits: { diskBytes: 40 * 1024 * 1024, fileSizeBytes: 8 * 1024 * 1024 },
      });
      expect(result.output).not.toContain("wrote everything");
      expect(result.limit?.name).toBe("disk");
      expect(result.limit?.message).toMatch(/over the limit of 40 MB/);
      await rm(join(repo, "flood"), { recursive: true, force: true });
    });
  });

  it.each(available)("fills a private /tmp only up to its size (%s)", async (level) => {
    await writeFile(
      join(repo, "flood_tmp.py"),
      `import os, errno
written = 0
try:
    with open("/tmp/big", "wb") as f:
        for _ in range(64):
            f.write(b"x" * (1 << 20)); f.flush(); written += 1
    print("wrote all", written)
except OSError as e:
    print("tmp full after", written, "MB", e.errno == errno.ENOSPC)
`,
    );
    await withIsolation(level, async () => {
      const result = await runSandboxed(["python3", "flood_tmp.py"], {
        cwd: repo,
        timeoutMs: 30_000,
        limits: { tmpBytes: 16 * 1024 * 1024 },
      });
      expect(result.output).toMatch(/tmp full after 1[56] MB True/);
    });
  });

  it.each(available)("says 'timed out after N s' when the wall-time limit stops it (%s)", async (level) => {
    await withIsolation(level, async () => {
      const result = await runSandboxed(["python3", "-c", "import time; time.sleep(60)"], {
        cwd: repo,
        timeoutMs: 1_500,
      });
      expect(result.timedOut).toBe(true);
      expect(result.limit?.name).toBe("wall-time");
      expect(result.limit?.message).toMatch(/^timed out after 1\.5 s/);
    });
  });
});

describe("choosing the isolation", () => {
  it("refuses to run tests as root with no sandbox unless the operator opts in", async () => {
    if (process.getuid?.() !== 0) return expect(process.getuid?.()).not.toBe(0);
    process.env.AUTOGEN_ISOLATION = "none";
    resetIsolationProbe();
    try {
      const refused = await runSandboxed(["true"], { cwd: tmpdir(), timeoutMs: 5_000 });
      expect(refused.exitCode).toBeNull();
      expect(refused.spawnError).toMatch(/refusing to run a repository's tests as root with no sandbox/);
      process.env.AUTOGEN_ALLOW_UNSANDBOXED_ROOT = "1";
      resetIsolationProbe();
      const allowed = await runSandboxed(["true"], { cwd: tmpdir(), timeoutMs: 5_000 });
      expect(allowed.exitCode).toBe(0);
      expect(allowed.isolation).toBe("none");
    } finally {
      delete process.env.AUTOGEN_ISOLATION;
      delete process.env.AUTOGEN_ALLOW_UNSANDBOXED_ROOT;
      resetIsolationProbe();
    }
  });

  it("names a forced level that does not work instead of silently running weaker", async () => {
    process.env.AUTOGEN_ISOLATION = "bwrap";
    const path = process.env.PATH;
    process.env.PATH = "/nonexistent";
    resetIsolationProbe();
    try {
      const result = await runSandboxed(["/bin/true"], { cwd: tmpdir(), timeoutMs: 5_000 });
      expect(result.spawnError).toMatch(/AUTOGEN_ISOLATION=bwrap, but bubblewrap \(bwrap\) does not work/);
    } finally {
      process.env.PATH = path;
      delete process.env.AUTOGEN_ISOLATION;
      resetIsolationProbe();
    }
  });
});
