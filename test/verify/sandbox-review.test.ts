// Escapes a hostile review found in the first version of the sandbox, each tried for real.
import { execFileSync } from "node:child_process";
import { mkdir, mkdtemp, rm, symlink, writeFile } from "node:fs/promises";
import { homedir, tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readRunOutput } from "../../src/verify/read-run-output.ts";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";

const secretDir = await mkdtemp(join(homedir(), ".autogen-review-secret-"));
await writeFile(join(secretDir, "key"), "REVIEW-SECRET-CONTENT");
afterAll(() => rm(secretDir, { recursive: true, force: true }));

describe("the sandbox against a review's escapes", () => {
  it("does not show a hidden directory through a committed node_modules/.bin link on the run's PATH", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-binlink-"));
    await mkdir(join(repo, "node_modules"));
    await symlink(secretDir, join(repo, "node_modules", ".bin"));
    const result = await runSandboxed(["cat", "node_modules/.bin/key"], {
      cwd: repo,
      timeoutMs: 10_000,
      pathPrefix: [join(repo, "node_modules", ".bin")],
    });
    expect(result.output).not.toContain("REVIEW-SECRET-CONTENT");
  });

  it("does not show a hidden directory through a worktree .git replaced by a link (a read-only path is never followed)", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-gitlink-"));
    await symlink(secretDir, join(repo, ".git"));
    const result = await runSandboxed(["cat", ".git/key"], {
      cwd: repo,
      timeoutMs: 10_000,
      readOnlyPaths: [join(repo, ".git")],
    });
    expect(result.output).not.toContain("REVIEW-SECRET-CONTENT");
  });

  it("stops a run that backdates what it writes (the watch reads ctime, which a run cannot set)", async () => {
    const repo = await mkdtemp(join(tmpdir(), "autogen-backdate-"));
    const script =
      'for i in 1 2 3 4; do head -c 30000000 /dev/zero > "f$i"; touch -d 2000-01-01 "f$i"; sleep 0.3; done; sleep 3; echo "all written"';
    const result = await runSandboxed(["/bin/sh", "-c", script], {
      cwd: repo,
      timeoutMs: 30_000,
      limits: { diskBytes: 40 * 1024 * 1024 },
    });
    expect(result.limit?.name).toBe("disk");
    expect(result.output).not.toContain("all written");
  });
});

describe("readRunOutput", () => {
  it("reads a regular file, and refuses a link, a FIFO (without hanging) and an oversized file", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-runout-"));
    await writeFile(join(dir, "report.xml"), "<testsuite/>");
    expect(await readRunOutput(join(dir, "report.xml"), 1024)).toBe("<testsuite/>");
    expect(await readRunOutput(join(dir, "report.xml"), 4)).toBeUndefined();
    await symlink(join(secretDir, "key"), join(dir, "link.xml"));
    expect(await readRunOutput(join(dir, "link.xml"), 1024)).toBeUndefined();
    execFileSync("mkfifo", [join(dir, "fifo.xml")]);
    expect(await readRunOutput(join(dir, "fifo.xml"), 1024)).toBeUndefined();
    expect(await readRunOutput(join(dir, "missing.xml"), 1024)).toBeUndefined();
  });
});
