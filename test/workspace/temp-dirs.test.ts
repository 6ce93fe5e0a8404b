// The bot's folders under $TMPDIR go when the job that made them ends, and when the process
// ends otherwise: `autogen fix` stopped by SIGTERM mid-run leaves its TMPDIR empty.
import { spawn, spawnSync } from "node:child_process";
import { readdirSync } from "node:fs";
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { gitRepo } from "../support/git-repo.ts";
import { ROOT } from "../support/run-cli.ts";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";

async function waitFor(check: () => boolean, ms: number): Promise<boolean> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    if (check()) return true;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return check();
}

describe("temporary folders", () => {
  it("are removed when the process exits with some still listed, each with what it undoes", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "autogen-exit-tmp-"));
    const module = join(ROOT, "src/workspace/temp-dirs.ts");
    const script = `
      import { writeFileSync } from "node:fs";
      import { join } from "node:path";
      import { holdTempDir, makeTempDir, makeTempDirSync, removeTempDir } from ${JSON.stringify(module)};
      const a = await makeTempDir("autogen-a-");
      writeFileSync(join(a, "file"), "x");
      makeTempDirSync("autogen-b-");
      const gone = await makeTempDir("autogen-c-");
      await removeTempDir(gone);
      holdTempDir(await makeTempDir("autogen-d-"), () => writeFileSync(join(process.env.TMPDIR, "undone"), "yes"));
      process.exit(3);
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      encoding: "utf8",
    });
    expect(run.stderr).toBe("");
    expect(run.status).toBe(3);
    expect(readdirSync(tmp)).toEqual(["undone"]);
  });

  it("made just before a signal's exit are all removed (none is made after the exit's removal)", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "autogen-race-tmp-"));
    const module = join(ROOT, "src/workspace/temp-dirs.ts");
    // As the CLI does: SIGTERM exits at once, while folders are being made (the isolation probe's, a run's home).
    const script = `
      import { makeTempDir } from ${JSON.stringify(module)};
      process.on("SIGTERM", () => process.exit(143));
      setTimeout(() => undefined, 10_000);
      for (let i = 0; i < 200; i++) void makeTempDir("autogen-race-");
      process.kill(process.pid, "SIGTERM");
    `;
    const run = spawnSync(process.execPath, ["--input-type=module", "-e", script], {
      env: { PATH: process.env.PATH, TMPDIR: tmp },
      encoding: "utf8",
    });
    expect(run.status).toBe(143);
    expect(readdirSync(tmp)).toEqual([]);
  });

  it("of `autogen fix` stopped by SIGTERM mid-run are all removed, and its worktree forgotten", async () => {
    const tmp = await mkdtemp(join(tmpdir(), "autogen-fix-tmp-"));
    const home = await mkdtemp(join(tmpdir(), "autogen-fix-home-"));
    const repo = await gitRepo({ "test_hang.py": "import time\ndef test_hangs():\n    time.sleep(300)\n" });
    const child = spawn(process.execPath, [join(ROOT, "bin/autogen.js"), "fix", repo, "--strategy", "template"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: home, TMPDIR: tmp },
      stdio: "ignore",
    });
    const exited = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
    // The hanging suite runs in the sandbox, whose home is a folder of the bot's in TMPDIR.
    const running = () => readdirSync(tmp).some((name) => name.startsWith("autogen-home-"));
    expect(await waitFor(running, 60_000)).toBe(true);
    const made = readdirSync(tmp).sort();
    expect(made.some((name) => name.startsWith("autogen-fix-"))).toBe(true);
    child.kill("SIGTERM");
    expect(await exited).toBe(143);
    expect(readdirSync(tmp)).toEqual([]);
    const worktrees = spawnSync("git", ["worktree", "list", "--porcelain"], { cwd: repo, encoding: "utf8" }).stdout;
    expect(worktrees.match(/^worktree /gm)).toHaveLength(1);
  });

  it("of the template strategy's parallel copies go when one of them cannot be made", async () => {
    const dir = await mkdtemp(join(tmpdir(), "autogen-slotfail-"));
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "s", type: "module", scripts: { test: "node --test" } }),
    );
    await writeFile(join(dir, "price.js"), "export function total(a, b) {\n  return a - b;\n}\n");
    await mkdir(join(dir, "test"));
    await writeFile(
      join(dir, "test", "price.test.js"),
      'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { total } from "../price.js";\ntest("total adds", () => assert.equal(total(2, 3), 5));\n',
    );
    // A socket a test run left in the worktree: fs.cp refuses it, halfway through the first copy.
    const server = createServer();
    await new Promise<void>((resolve) => server.listen(join(dir, "left.sock"), resolve));
    const tmp = await mkdtemp(join(tmpdir(), "autogen-slots-tmp-"));
    const outer = process.env.TMPDIR;
    process.env.TMPDIR = tmp;
    try {
      const runner = detectRunner(dir);
      const sandbox = { timeoutMs: 60_000 };
      const run = templateStrategy.run({
        workspace: dir,
        visible: { kind: "all" },
        verifier: localVerifier(runner, sandbox),
        sandbox,
        runnerName: runner.name,
        isTestFile,
        budget: { candidates: 20, minutes: 5 },
        parallelism: 3,
      });
      await expect(run).rejects.toThrow(/socket/i);
      expect(readdirSync(tmp).filter((name) => name.startsWith("autogen-slot-"))).toEqual([]);
    } finally {
      process.env.TMPDIR = outer;
      server.close();
    }
  });
});
