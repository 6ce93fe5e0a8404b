// The one reader of worktree files on the host, attacked with what a test can leave behind
// in the worktree: a link at the end or in a parent directory (to a host file, to
// /proc/self/environ, to /dev/zero), a hard link to a file elsewhere, a FIFO nobody writes,
// a character device, a socket, an oversize file. Every refusal must come without reading
// the target (the canary outside never appears) and without blocking.
import { execFileSync, spawnSync } from "node:child_process";
import { chmodSync, linkSync, mkdirSync, mkdtempSync, symlinkSync, writeFileSync } from "node:fs";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { UnsafePathError } from "../../src/workspace/safe-path.ts";
import {
  readWorktreeBytes,
  readWorktreeBytesSync,
  readWorktreeText,
  readWorktreeTextSync,
  tryReadWorktreeText,
  tryReadWorktreeTextSync,
  WORKTREE_READ_LIMIT,
} from "../../src/workspace/read-worktree-file.ts";

const CANARY = "RTCANARY-outside-the-worktree";

/** base/repo (a worktree: lib/helpers.py, cart.py) and base/outside/secret.txt (mode 0600, the canary). */
function layout(): { base: string; root: string; secret: string } {
  const base = mkdtempSync(join(tmpdir(), "autogen-readwt-"));
  const root = join(base, "repo");
  mkdirSync(join(root, "lib"), { recursive: true });
  mkdirSync(join(base, "outside"));
  writeFileSync(join(root, "lib", "helpers.py"), "def add(a, b):\n    return a + b\n");
  writeFileSync(join(root, "cart.py"), "from lib.helpers import add\n");
  const secret = join(base, "outside", "secret.txt");
  writeFileSync(secret, `${CANARY}\n`);
  chmodSync(secret, 0o600);
  return { base, root, secret };
}

/** Every reader on one path: the error each threw (or the text it returned, which is a failure here). */
async function allReaders(root: string, path: string): Promise<Array<{ reader: string; result: string }>> {
  const out: Array<{ reader: string; result: string }> = [];
  const record = async (reader: string, read: () => unknown) => {
    try {
      const value = await read();
      out.push({
        reader,
        result: `READ ${String(value instanceof Buffer ? value.toString("latin1") : value).slice(0, 200)}`,
      });
    } catch (error) {
      out.push({ reader, result: `${(error as Error).name}: ${(error as Error).message}` });
    }
  };
  await record("readWorktreeText", () => readWorktreeText(root, path));
  await record("readWorktreeBytes", () => readWorktreeBytes(root, path));
  await record("readWorktreeTextSync", () => readWorktreeTextSync(root, path));
  await record("readWorktreeBytesSync", () => readWorktreeBytesSync(root, path));
  return out;
}

/** All four readers refused `path` with an UnsafePathError naming `reason`, and nothing read reached the caller. */
async function expectRefused(root: string, path: string, reason: RegExp): Promise<void> {
  const results = await allReaders(root, path);
  for (const { reader, result } of results) {
    expect(result, reader).toMatch(/^UnsafePathError: /);
    expect(result, reader).toMatch(reason);
    expect(result, reader).not.toContain(CANARY);
  }
  expect(await tryReadWorktreeText(root, path)).toBeUndefined();
  expect(tryReadWorktreeTextSync(root, path)).toBeUndefined();
}

describe("readWorktreeText & co.: what an honest worktree holds", () => {
  it("reads a regular file, in a subdirectory too, as text and as bytes", async () => {
    const { root } = layout();
    expect(await readWorktreeText(root, "lib/helpers.py")).toBe("def add(a, b):\n    return a + b\n");
    expect(readWorktreeTextSync(root, "cart.py")).toBe("from lib.helpers import add\n");
    expect((await readWorktreeBytes(root, "cart.py")).toString("utf8")).toBe("from lib.helpers import add\n");
    expect(readWorktreeBytesSync(root, "lib/helpers.py").length).toBe(32);
  });

  it("reads an empty file as empty, and a missing one as a refusal that says so", async () => {
    const { root } = layout();
    writeFileSync(join(root, "empty.py"), "");
    expect(await readWorktreeText(root, "empty.py")).toBe("");
    await expectRefused(root, "missing.py", /no such file in the repository/);
    await expectRefused(root, "nodir/missing.py", /no such file in the repository/);
  });

  it("a root reached through a link is fine (only what is below it is checked)", async () => {
    const { base, root } = layout();
    symlinkSync(root, join(base, "root-link"));
    expect(await readWorktreeText(join(base, "root-link"), "lib/helpers.py")).toContain("return a + b");
    expect(readWorktreeTextSync(join(base, "root-link"), "cart.py")).toContain("import add");
  });
});

describe("readWorktreeText & co.: links a test left behind", () => {
  it("a link at the end, to a host file outside (mode 0600), is refused without reading it", async () => {
    const { root, secret } = layout();
    symlinkSync(secret, join(root, "lib", "util.py"));
    await expectRefused(root, "lib/util.py", /symbolic link/);
  });

  it("a context file swapped for a link to /proc/self/environ is refused (the bot's own environment never read)", async () => {
    const { root } = layout();
    process.env.AUTOGEN_READWT_TEST_CANARY = CANARY;
    try {
      execFileSync("rm", [join(root, "lib", "helpers.py")]);
      symlinkSync("/proc/self/environ", join(root, "lib", "helpers.py"));
      await expectRefused(root, "lib/helpers.py", /symbolic link/);
    } finally {
      delete process.env.AUTOGEN_READWT_TEST_CANARY;
    }
  });

  it("a relative link that stays inside the worktree is refused too (it could be retargeted after the check)", async () => {
    const { root } = layout();
    symlinkSync("cart.py", join(root, "alias.py"));
    await expectRefused(root, "alias.py", /symbolic link/);
  });

  it("a link in a parent directory (lib → outside) is refused, for the host file and for /proc/self", async () => {
    const { base, root } = layout();
    symlinkSync(join(base, "outside"), join(root, "vendor"));
    await expectRefused(root, "vendor/secret.txt", /symbolic link/);
    symlinkSync("/proc/self", join(root, "proc"));
    await expectRefused(root, "proc/environ", /symbolic link/);
  });

  it("/dev/zero through a link at the end or in a parent directory is refused, not read", async () => {
    const { root } = layout();
    symlinkSync("/dev/zero", join(root, "zero.py"));
    await expectRefused(root, "zero.py", /symbolic link/);
    symlinkSync("/dev", join(root, "devices"));
    await expectRefused(root, "devices/zero", /symbolic link/);
  });
});

describe("readWorktreeText & co.: what is not a regular file of the worktree", () => {
  it("a hard link to a file outside the worktree is refused (nlink > 1), the canary unread", async () => {
    const { root, secret } = layout();
    linkSync(secret, join(root, "lib", "hard.py"));
    await expectRefused(root, "lib/hard.py", /other hard links/);
  });

  it("a FIFO nobody writes to is refused at once, by every reader (none blocks)", async () => {
    const { root } = layout();
    execFileSync("mkfifo", [join(root, "lib", "fifo.py")]);
    await expectRefused(root, "lib/fifo.py", /not a regular file/);
  });

  it("the synchronous readers on a FIFO do not block the process (checked in a child that would otherwise hang)", () => {
    const { root } = layout();
    execFileSync("mkfifo", [join(root, "pipe.py")]);
    const module = fileURLToPath(new URL("../../src/workspace/read-worktree-file.ts", import.meta.url));
    const script = `import { tryReadWorktreeTextSync } from ${JSON.stringify(module)}; console.log(JSON.stringify(tryReadWorktreeTextSync(${JSON.stringify(root)}, "pipe.py") ?? "REFUSED"));`;
    // A blocked open would never end: the child is killed after the limit and the test fails on its status.
    const child = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      encoding: "utf8",
      timeout: 60_000,
      killSignal: "SIGKILL",
    });
    expect(child.signal, child.stderr).toBeNull();
    expect(child.stdout.trim()).toBe('"REFUSED"');
  });

  it("a character device (a real /dev/zero node made in the worktree) is refused without reading a byte", async () => {
    const { root } = layout();
    const made = spawnSync("mknod", [join(root, "zero.py"), "c", "1", "5"], { encoding: "utf8" });
    // mknod needs CAP_MKNOD (root here); without it the node cannot be planted by a test either.
    expect(made.status, `mknod: ${made.stderr}`).toBe(0);
    await expectRefused(root, "zero.py", /not a regular file/);
  });

  it("a Unix socket and a directory are refused", async () => {
    const { root } = layout();
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(root, "sock.py"), resolve));
    try {
      await expectRefused(root, "sock.py", /not a regular file|no such device|ENXIO/);
    } finally {
      server.close();
    }
    await expectRefused(root, "lib", /not a regular file/);
  });

  it("paths out of the worktree or into .git are refused before any open", async () => {
    const { root } = layout();
    await expectRefused(root, "../outside/secret.txt", /leaves the repository/);
    await expectRefused(root, "/etc/passwd", /absolute paths/);
    await expectRefused(root, ".git/config", /\.git directory is off limits/);
  });
});

describe("readWorktreeText & co.: bounded size", () => {
  it("a file over maxBytes is refused by default, naming the bound and the size", async () => {
    const { root } = layout();
    writeFileSync(join(root, "big.py"), "x".repeat(5000));
    await expect(readWorktreeText(root, "big.py", { maxBytes: 4096 })).rejects.toThrow(
      /larger than 4096 bytes \(5000\)/,
    );
    expect(() => readWorktreeTextSync(root, "big.py", { maxBytes: 4096 })).toThrow(UnsafePathError);
    expect(await tryReadWorktreeText(root, "big.py", { maxBytes: 4096 })).toBeUndefined();
  });

  it("with overLimit truncate, the first maxBytes and no more; a file of exactly maxBytes is read whole", async () => {
    const { root } = layout();
    writeFileSync(join(root, "big.py"), `${"a".repeat(4096)}${"b".repeat(904)}`);
    expect(await readWorktreeText(root, "big.py", { maxBytes: 4096, overLimit: "truncate" })).toBe("a".repeat(4096));
    expect(readWorktreeBytesSync(root, "big.py", { maxBytes: 10, overLimit: "truncate" }).toString()).toBe(
      "a".repeat(10),
    );
    writeFileSync(join(root, "exact.py"), "c".repeat(4096));
    expect((await readWorktreeText(root, "exact.py", { maxBytes: 4096 })).length).toBe(4096);
  });

  it("the default bound applies without options (a file one byte over WORKTREE_READ_LIMIT is refused)", async () => {
    const { root } = layout();
    writeFileSync(join(root, "huge.bin"), Buffer.alloc(WORKTREE_READ_LIMIT + 1, 0x61));
    await expect(readWorktreeBytes(root, "huge.bin")).rejects.toThrow(
      new RegExp(`larger than ${WORKTREE_READ_LIMIT} bytes`),
    );
    expect(() => readWorktreeBytesSync(root, "huge.bin")).toThrow(/larger than/);
  });
});
