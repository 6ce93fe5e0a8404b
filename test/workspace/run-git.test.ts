// The one way the bot runs git: simple-git's argument check still refuses options that
// run programs, the host's environment does not reach git, bytes come back as stored,
// and a failure says what git said (never the command line).
import { execFileSync } from "node:child_process";
import { existsSync } from "node:fs";
import { mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { GitCommandError, runGit, runGitBytes, runGitSync } from "../../src/workspace/run-git.ts";
import { gitRepo } from "../support/git-repo.ts";

describe("runGit", () => {
  it("refuses --upload-pack and a -c that names a program, before anything runs", async () => {
    const scratch = await mkdtemp(join(tmpdir(), "autogen-rungit-"));
    const marker = join(scratch, "ran");
    const evil = `touch ${marker}`;
    await expect(runGit(["clone", `--upload-pack=${evil}`, "--", "/nonexistent", join(scratch, "c")])).rejects.toThrow(
      /^refusing to run git clone: Use of --upload-pack/,
    );
    await expect(runGit(["-c", `core.sshCommand=${evil}`, "fetch", "origin"], { cwd: scratch })).rejects.toThrow(
      GitCommandError,
    );
    expect(() => runGitSync(["-c", `diff.external=${evil}`, "diff"], { cwd: scratch })).toThrow(/refusing to run git/);
    expect(existsSync(marker)).toBe(false);
  });

  it("gives git none of the host's environment: a GIT_DIR or GIT_CONFIG_PARAMETERS of the host does not reach it", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const before = { dir: process.env.GIT_DIR, params: process.env.GIT_CONFIG_PARAMETERS };
    process.env.GIT_DIR = "/nonexistent-host-git-dir";
    process.env.GIT_CONFIG_PARAMETERS = "'core.hookspath'='/tmp/evil'";
    try {
      expect((await runGit(["rev-parse", "--is-inside-work-tree"], { cwd: repo })).trim()).toBe("true");
      expect((await runGit(["config", "--get", "core.hooksPath"], { cwd: repo })).trim()).toBe("/dev/null");
    } finally {
      for (const [key, value] of [
        ["GIT_DIR", before.dir],
        ["GIT_CONFIG_PARAMETERS", before.params],
      ] as const)
        if (value === undefined) delete process.env[key];
        else process.env[key] = value;
    }
  });

  it("returns a blob's bytes as stored, invalid UTF-8 included", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0x0a, 0xc3]);
    await writeFile(join(repo, "blob.bin"), bytes);
    const sha = execFileSync("git", ["-C", repo, "hash-object", "-w", "--", "blob.bin"], { encoding: "utf8" }).trim();
    expect(await runGitBytes(["cat-file", "blob", sha], { cwd: repo })).toEqual(bytes);
  });

  it("fails with git's own words and exit code, never the command line; an exit code asked for is an answer", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const error = await runGit(["rev-parse", "--verify", "--end-of-options", "no-such-ref"], { cwd: repo }).catch(
      (e: unknown) => e,
    );
    expect(error).toBeInstanceOf(GitCommandError);
    expect((error as GitCommandError).exitCode).toBe(128);
    expect((error as Error).message).toMatch(/^fatal: /);
    expect((error as Error).message).not.toContain("--end-of-options");
    const quiet = runGit(["rev-parse", "--verify", "--quiet", "--end-of-options", "no-such-ref"], {
      cwd: repo,
      okExitCodes: [0, 1],
    });
    await expect(quiet).resolves.toBe("");
  });

  it("is cancelled by an aborted signal, with a message that says so", async () => {
    const repo = await gitRepo({ "a.txt": "a\n" });
    const controller = new AbortController();
    controller.abort();
    await expect(runGit(["status"], { cwd: repo, signal: controller.signal })).rejects.toThrow(
      /^git status was cancelled$/,
    );
  });
});
