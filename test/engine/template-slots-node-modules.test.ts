// Parallel candidates run in scratch copies whose node_modules is a link to the
// original's: the sandbox, which hides the rest of the host's tmp, shows that one
// directory read-only, and never a node_modules link the repository committed itself.
import { mkdir, mkdtemp, symlink, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import { runSandboxed } from "../../src/verify/sandbox/run-sandboxed.ts";
import { grantDirectory } from "../../src/verify/sandbox/workspace-grants.ts";

async function jsRepo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-jsslots-"));
  await mkdir(join(dir, "node_modules", "tiny-math"), { recursive: true });
  await writeFile(
    join(dir, "node_modules", "tiny-math", "package.json"),
    JSON.stringify({ name: "tiny-math", version: "1.0.0", type: "module", exports: "./index.js" }),
  );
  await writeFile(join(dir, "node_modules", "tiny-math", "index.js"), "export const double = (x) => x * 2;\n");
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "slots", type: "module", scripts: { test: "node --test" } }),
  );
  await writeFile(
    join(dir, "price.js"),
    'import { double } from "tiny-math";\nexport function total(a, b) {\n  return double(a) - b;\n}\n',
  );
  await mkdir(join(dir, "test"));
  await writeFile(
    join(dir, "test", "price.test.js"),
    'import { test } from "node:test";\nimport assert from "node:assert/strict";\nimport { total } from "../price.js";\ntest("total adds", () => assert.equal(total(2, 3), 7));\ntest("total of zero", () => assert.equal(total(0, 0), 0));\n',
  );
  return dir;
}

describe("template candidates in parallel copies of a JavaScript workspace", () => {
  it("finds the fix with 2 slots, the copies reaching the original's node_modules", async () => {
    const dir = await jsRepo();
    const runner = detectRunner(dir);
    const sandbox = { timeoutMs: 60_000 };
    const outcome = await templateStrategy.run({
      workspace: dir,
      visible: { kind: "all" },
      verifier: localVerifier(runner, sandbox),
      sandbox,
      runnerName: runner.name,
      isTestFile,
      budget: { candidates: 200, minutes: 10 },
      parallelism: 2,
    });
    expect(outcome.status).toBe("fixed");
    expect(outcome.plan.fix?.description).toBe("`-` → `+`");
    // Every attempt ran tests: none ended in a module-not-found error from a hidden node_modules.
    expect(outcome.attempts.every((a) => a.passed + a.failed > 0)).toBe(true);
  }, 180_000);

  it("shows a copy the original's node_modules only once the bot has registered its own link", async () => {
    const original = await jsRepo();
    const copy = await mkdtemp(join(tmpdir(), "autogen-slotcopy-"));
    await symlink(join(original, "node_modules"), join(copy, "node_modules"));
    const probe = [
      process.execPath,
      "--input-type=module",
      "-e",
      'import("tiny-math").then((m) => console.log("doubled", m.double(21)))',
    ];
    const before = await runSandboxed(probe, { cwd: copy, timeoutMs: 20_000 });
    expect(before.output).not.toContain("doubled 42");
    grantDirectory(copy, join(original, "node_modules"));
    const after = await runSandboxed(probe, { cwd: copy, timeoutMs: 20_000 });
    expect(after.output).toContain("doubled 42");
  });

  it("does not show another job's granted node_modules to a repository that links to it", async () => {
    // Job A's workspace was given an install-cache entry; repository B commits a link to the same path.
    const installed = await jsRepo();
    const jobA = await mkdtemp(join(tmpdir(), "autogen-joba-"));
    grantDirectory(jobA, join(installed, "node_modules"));
    const jobB = await mkdtemp(join(tmpdir(), "autogen-jobb-"));
    await symlink(join(installed, "node_modules"), join(jobB, "node_modules"));
    const probe = [
      process.execPath,
      "--input-type=module",
      "-e",
      'import("tiny-math").then((m) => console.log("doubled", m.double(21)))',
    ];
    const b = await runSandboxed(probe, { cwd: jobB, timeoutMs: 20_000 });
    expect(b.output).not.toContain("doubled 42");
    await symlink(join(installed, "node_modules"), join(jobA, "node_modules"));
    const a = await runSandboxed(probe, { cwd: jobA, timeoutMs: 20_000 });
    expect(a.output).toContain("doubled 42");
  });

  it("does not show the target of a node_modules link the repository committed", async () => {
    const secret = await mkdtemp(join(tmpdir(), "autogen-secretdir-"));
    await writeFile(join(secret, "key.txt"), "host secret");
    const repo = await mkdtemp(join(tmpdir(), "autogen-linkrepo-"));
    await symlink(secret, join(repo, "node_modules"));
    const result = await runSandboxed(["cat", "node_modules/key.txt"], { cwd: repo, timeoutMs: 10_000 });
    expect(result.output).not.toContain("host secret");
    expect(result.exitCode).not.toBe(0);
  });
});
