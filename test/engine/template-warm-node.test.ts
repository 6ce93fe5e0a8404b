// The template strategy with warm node zygotes in its slots: the same fix and the same
// attempts as with cold runs, with candidates' failing tests really run warm (real node
// --test, real sandbox, a scratch copy reaching the original's node_modules).
import { mkdir, mkdtemp, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isTestFile } from "../../src/engine/is-test-file.ts";
import { templateStrategy } from "../../src/engine/template/template-strategy.ts";
import { localVerifier } from "../../src/verify/local-verifier.ts";
import { detectRunner } from "../../src/verify/runners/detect-runner.ts";
import type { WarmSlot } from "../../src/verify/warm/warm-pytest-slot.ts";

async function jsRepo(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-jswarm-"));
  await mkdir(join(dir, "node_modules", "tiny-math"), { recursive: true });
  await writeFile(
    join(dir, "node_modules", "tiny-math", "package.json"),
    JSON.stringify({ name: "tiny-math", version: "1.0.0", type: "module", exports: "./index.js" }),
  );
  await writeFile(join(dir, "node_modules", "tiny-math", "index.js"), "export const double = (x) => x * 2;\n");
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "warm", type: "module", scripts: { test: "node --test" } }),
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

async function run(warm: boolean, opened: WarmSlot[]) {
  const dir = await jsRepo();
  const runner = detectRunner(dir);
  const sandbox = { timeoutMs: 60_000 };
  const verifier = localVerifier(runner, { ...sandbox, warm });
  const open = verifier.openWarm?.bind(verifier);
  if (open) {
    verifier.openWarm = (workspace) => {
      const slot = open(workspace);
      opened.push(slot);
      return slot;
    };
  }
  return templateStrategy.run({
    workspace: dir,
    visible: { kind: "all" },
    verifier,
    sandbox,
    runnerName: runner.name,
    isTestFile,
    budget: { candidates: 200, minutes: 10 },
    parallelism: 2,
  });
}

describe("template strategy with warm node slots", () => {
  it("finds the cold run's fix with the same attempts, validating candidates on zygotes", async () => {
    const opened: WarmSlot[] = [];
    const warm = await run(true, opened);
    const cold = await run(false, []);
    expect(warm.status).toBe("fixed");
    expect(warm.diff).toBe(cold.diff);
    expect(warm.attempts.map((a) => `${a.index}:${a.result}`)).toEqual(
      cold.attempts.map((a) => `${a.index}:${a.result}`),
    );
    expect(opened).toHaveLength(2);
    const warmRuns = opened.reduce((sum, slot) => sum + slot.stats.warm, 0);
    expect(warmRuns).toBe(warm.attempts.length);
  }, 300_000);
});
