// `npm run bench:warm -- [tests] [candidates]`: the cost of validating a candidate that
// still fails, cold (a fresh sandboxed test process per candidate) against warm (the slot's
// warm runner), on generated repositories whose test module holds N tests (default 400):
// Python (pytest: a forked warm session) and JavaScript (node --test: a pre-started zygote that
// runs a single-file run in its own process).
// Target per candidate: at most 2 × the targeted test's own time + 0.3 s.
import { spawnSync } from "node:child_process";
import { mkdir, mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { localVerifier } from "../src/verify/local-verifier.ts";
import { detectRunner, pytestRunner } from "../src/verify/runners/detect-runner.ts";
import type { TestReport } from "../src/verify/test-report.ts";

const tests = Number(process.argv[2] ?? 400);
const candidates = Number(process.argv[3] ?? 8);
const LIMIT = { timeoutMs: 120_000, reason: "bench" };
const ENV = { PYTEST_DISABLE_PLUGIN_AUTOLOAD: "1" };

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? 0;
const ownMs = (report: TestReport) => report.tests.reduce((sum, t) => sum + (t.durationMs ?? 0), 0);
const fmt = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

function stillFailing(report: TestReport, label: string): void {
  if (!report.tests.some((t) => t.status === "fail"))
    throw new Error(`${label}: the candidate was expected to still fail (${report.run.output.slice(-300)})`);
}

async function python(root: string): Promise<void> {
  const dir = join(root, "py");
  await mkdir(join(dir, "tests"), { recursive: true });
  await writeFile(
    join(dir, "lib.py"),
    "def clamp(x, lo, hi):\n    return max(lo, min(x, hi - 1))\n\n" +
      Array.from({ length: 50 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join("\n"),
  );
  const body = [
    "import pytest",
    "from lib import clamp, " + Array.from({ length: 50 }, (_, i) => `f${i}`).join(", "),
    "",
  ];
  for (let i = 0; i < tests - 1; i++) body.push(`def test_f_${i}():\n    assert f${i % 50}(${i}) == ${i + (i % 50)}\n`);
  body.push("def test_clamp():\n    assert clamp(10, 0, 10) == 10\n");
  await writeFile(join(dir, "tests", "test_lib.py"), body.join("\n"));
  const ids = ["tests/test_lib.py::test_clamp"];
  const verifier = localVerifier(pytestRunner([], "bench"), { timeoutMs: 300_000, env: ENV, warm: true });
  const variants = Array.from(
    { length: candidates },
    (_, i) => `def clamp(x, lo, hi):\n    return max(lo, min(x, hi - ${i + 1}))\n`,
  );
  const rest = "\n" + Array.from({ length: 50 }, (_, i) => `def f${i}(x):\n    return x + ${i}\n`).join("\n");

  const cold: number[] = [];
  const own: number[] = [];
  for (const variant of variants) {
    await writeFile(join(dir, "lib.py"), variant + rest);
    const report = await verifier.run(dir, { kind: "tests", ids }, undefined, LIMIT);
    stillFailing(report, "python cold");
    cold.push(report.run.durationMs);
    own.push(ownMs(report));
  }
  const slot = verifier.openWarm?.(dir);
  if (!slot) throw new Error("no warm runner for pytest");
  const startAt = performance.now();
  await slot.prepare({ kind: "tests", ids });
  const startMs = performance.now() - startAt;
  const warm: number[] = [];
  const warmOwn: number[] = [];
  for (const variant of variants) {
    await writeFile(join(dir, "lib.py"), variant + rest);
    const t = performance.now();
    const report = await slot.run({ kind: "tests", ids }, LIMIT);
    warm.push(performance.now() - t);
    stillFailing(report, "python warm");
    warmOwn.push(ownMs(report));
  }
  await slot.close();
  if (slot.stats.warm !== candidates)
    throw new Error(
      `only ${slot.stats.warm} of ${candidates} candidates ran warm: ${slot.stats.coldReasons.join("; ")}`,
    );
  const ownTime = median([...own, ...warmOwn]);
  const target = 2 * ownTime + 300;
  console.log(`pytest, ${tests} tests in the module, ${candidates} still-failing candidates`);
  console.log(`  targeted test's own time (JUnit, median): ${fmt(ownTime)}; target per candidate: ${fmt(target)}`);
  console.log(`  cold: median ${fmt(median(cold))}  max ${fmt(Math.max(...cold))}`);
  console.log(
    `  warm: median ${fmt(median(warm))}  max ${fmt(Math.max(...warm))}  (server start, once per slot: ${fmt(startMs)})`,
  );
  console.log(
    `  target ${median(warm) <= target ? "HOLDS" : "MISSED"} warm (median); cold ${median(cold) <= target ? "holds" : "misses"} it; warm is ${(median(cold) / median(warm)).toFixed(1)}× faster`,
  );
}

async function node(root: string): Promise<void> {
  const dir = join(root, "js");
  await mkdir(join(dir, "test"), { recursive: true });
  await writeFile(
    join(dir, "package.json"),
    JSON.stringify({ name: "bench", type: "module", scripts: { test: "node --test test/" } }),
  );
  const body = [
    'import { test } from "node:test";',
    'import assert from "node:assert/strict";',
    'import { clamp, add } from "../lib.js";',
    "",
  ];
  for (let i = 0; i < tests - 1; i++) body.push(`test("add ${i}", () => { assert.equal(add(${i}, 1), ${i + 1}); });`);
  body.push('test("clamp", () => { assert.equal(clamp(10, 0, 10), 10); });');
  await writeFile(join(dir, "test", "lib.test.js"), body.join("\n"));
  const verifier = localVerifier(detectRunner(dir, "node --test test/lib.test.js"), { timeoutMs: 300_000, warm: true });
  const variant = (i: number) =>
    `export const add = (a, b) => a + b;\nexport const clamp = (x, lo, hi) => Math.max(lo, Math.min(x, hi - ${i + 1}));\n`;
  const cold: number[] = [];
  const own: number[] = [];
  for (let i = 0; i < candidates; i++) {
    await writeFile(join(dir, "lib.js"), variant(i));
    const report = await verifier.run(dir, { kind: "tests", ids: ["clamp"] }, undefined, LIMIT);
    stillFailing(report, "node cold");
    cold.push(report.run.durationMs);
    own.push(ownMs(report));
  }
  const slot = verifier.openWarm?.(dir);
  if (!slot) throw new Error("no warm runner for node --test");
  const startAt = performance.now();
  await slot.prepare({ kind: "tests", ids: ["clamp"] });
  const startMs = performance.now() - startAt;
  const warm: number[] = [];
  const warmOwn: number[] = [];
  for (let i = 0; i < candidates; i++) {
    await writeFile(join(dir, "lib.js"), variant(i));
    // As in a slot: the candidate is written (and, in the bot, generated) while the next zygote starts.
    await new Promise((resolve) => setTimeout(resolve, 3000));
    const t = performance.now();
    const report = await slot.run({ kind: "tests", ids: ["clamp"] }, LIMIT);
    warm.push(performance.now() - t);
    stillFailing(report, "node warm");
    warmOwn.push(ownMs(report));
  }
  // Back to back (a template strategy's mutants, written at once): the next zygote's start is not hidden.
  const backToBack: number[] = [];
  for (let i = 0; i < candidates; i++) {
    await writeFile(join(dir, "lib.js"), variant(i));
    const t = performance.now();
    stillFailing(await slot.run({ kind: "tests", ids: ["clamp"] }, LIMIT), "node warm back to back");
    backToBack.push(performance.now() - t);
  }
  await slot.close();
  // The floor a zygote cannot go under: the same node --test command alone, no sandbox (our own generated files).
  const bare: number[] = [];
  for (let i = 0; i < candidates; i++) {
    const t = performance.now();
    spawnSync(
      process.execPath,
      ["--test-reporter=tap", "--test-name-pattern=^(clamp)$", "--test", "test/lib.test.js"],
      { cwd: dir, stdio: "ignore" },
    );
    bare.push(performance.now() - t);
  }
  if (slot.stats.warm !== 2 * candidates)
    throw new Error(
      `only ${slot.stats.warm} of ${2 * candidates} candidates ran warm: ${slot.stats.coldReasons.join("; ")}`,
    );
  const ownTime = median([...own, ...warmOwn]);
  const target = 2 * ownTime + 300;
  console.log(
    `node --test, ${tests} tests in the module, ${candidates} still-failing candidates (warm: a pre-started zygote per slot; ${String(slot.stats.inProcess ?? 0)} of ${String(slot.stats.warm)} ran in the zygote's own process)`,
  );
  console.log(`  targeted test's own time (JUnit, median): ${fmt(ownTime)}; target per candidate: ${fmt(target)}`);
  console.log(`  cold: median ${fmt(median(cold))}  max ${fmt(Math.max(...cold))}`);
  console.log(
    `  warm: median ${fmt(median(warm))}  max ${fmt(Math.max(...warm))}  (first zygote start: ${fmt(startMs)}; later ones start while the candidate is written)`,
  );
  console.log(
    `  target ${median(warm) <= target ? "HOLDS" : "MISSED"} warm (median); cold ${median(cold) <= target ? "holds" : "misses"} it; warm is ${(median(cold) / median(warm)).toFixed(1)}× faster`,
  );
  console.log(
    `  node --test alone, no sandbox (the floor for a zygote that spawns it; the in-process path goes under it): median ${fmt(median(bare))}`,
  );
  console.log(
    `  warm back to back (no time to start the next zygote): median ${fmt(median(backToBack))}; target ${median(backToBack) <= target ? "holds" : "MISSED"}`,
  );
}

const root = await mkdtemp(join(tmpdir(), "autogen-bench-warm-"));
try {
  await python(root);
  await node(root);
} finally {
  await rm(root, { recursive: true, force: true });
}
