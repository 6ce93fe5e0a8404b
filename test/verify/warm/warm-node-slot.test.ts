// The warm node runner (a pre-started zygote per slot) against the cold run it stands in for,
// with real node --test in the real sandbox: the same results for passing, failing and
// looping candidates, candidates that change tests or package.json included, a cold run when
// the zygote dies, and no more access than a cold run has.
import { readdirSync, readFileSync, readlinkSync } from "node:fs";
import { mkdir, mkdtemp, readFile, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { localVerifier } from "../../../src/verify/local-verifier.ts";
import { detectRunner } from "../../../src/verify/runners/detect-runner.ts";
import type { TestReport } from "../../../src/verify/test-report.ts";
import type { WarmSlot } from "../../../src/verify/warm/warm-pytest-slot.ts";
import { WARM_ZYGOTE } from "../../../src/verify/warm/warm-zygote-slot.ts";

const LIMIT = { timeoutMs: 20_000, reason: "the test's candidate limit" };
const IDS = ["adds", "scales", "counts down"];

const FILES: Record<string, string> = {
  "package.json": JSON.stringify({ name: "calc", type: "module", scripts: { test: "node --test" } }),
  "lib.js":
    "export const add = (a, b) => a - b;\nexport const scale = (x) => x * 2;\nexport function countDown(n) {\n  let steps = 0;\n  while (n !== 0) { n -= 1; steps += 1; }\n  return steps;\n}\n",
  "test/calc.test.js": [
    'import { test } from "node:test";',
    'import assert from "node:assert/strict";',
    'import { add, scale, countDown } from "../lib.js";',
    'test("adds", () => { assert.equal(add(1, 2), 3); });',
    'test("scales", () => { assert.equal(scale(3), 6); });',
    'test("counts down", () => { assert.equal(countDown(3), 3); });',
    'test("other", () => { assert.ok(true); });',
    "",
  ].join("\n"),
};

const lib = (addBody: string, countStep = "n -= 1") =>
  `export const add = (a, b) => ${addBody};\nexport const scale = (x) => x * 2;\nexport function countDown(n) {\n  let steps = 0;\n  while (n !== 0) { ${countStep}; steps += 1; }\n  return steps;\n}\n`;

const dirs: string[] = [];
const slots: WarmSlot[] = [];
afterEach(async () => {
  for (const slot of slots.splice(0)) await slot.close();
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function workspace(files: Record<string, string> = FILES): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), "autogen-warm-node-"));
  dirs.push(dir);
  for (const [path, text] of Object.entries(files)) {
    await mkdir(join(dir, path, ".."), { recursive: true });
    await writeFile(join(dir, path), text);
  }
  return dir;
}

function setup(dir: string, command = "node --test") {
  const cold = localVerifier(detectRunner(dir, command), { timeoutMs: 120_000, warm: true });
  const slot = cold.openWarm?.(dir);
  if (!slot) throw new Error("a node verifier with warm: true offers a warm runner");
  slots.push(slot);
  return { cold, slot };
}

const results = (report: TestReport) => report.tests.map((t) => `${t.id}=${t.status}`).sort();
/** Results by test name (node's JUnit ids are "file > test > name"). */
const named = (report: TestReport) => report.tests.map((t) => `${t.id.split(" > ").at(-1) ?? t.id}=${t.status}`).sort();

/** Host pids of this workspace's idle zygotes (started by this test, through the slot). */
function zygotesIn(dir: string): number[] {
  const found: number[] = [];
  for (const entry of readdirSync("/proc")) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const argv = readFileSync(`/proc/${entry}/cmdline`, "utf8").split("\0");
      if (argv[0]?.endsWith("node") && argv.includes(WARM_ZYGOTE) && readlinkSync(`/proc/${entry}/cwd`) === dir)
        found.push(Number(entry));
    } catch {
      // gone, or not ours to read
    }
  }
  return found;
}

describe("warm node runner (zygote)", () => {
  it("gives the cold run's results for passing, failing and looping candidates, a reverted one included", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    const series = [lib("a * b"), lib("a + b"), lib("a - b"), lib("a + b", "n -= 2"), lib("a + b")];
    const seen: string[][] = [];
    for (const [i, text] of series.entries()) {
      await writeFile(join(dir, "lib.js"), text);
      // The looping candidate (countDown(3) stepping by 2) is stopped by the run's limit, warm and cold: its per-test
      // limits are set past the run's, so which limit stops it does not depend on how busy the machine is.
      const limit =
        i === 3
          ? { timeoutMs: 3000, reason: "the test's short limit", perTestMs: 60_000, perTestWallMs: 60_000 }
          : LIMIT;
      const warm = await slot.run({ kind: "tests", ids: IDS }, limit);
      const coldReport = await cold.run(dir, { kind: "tests", ids: IDS }, undefined, limit);
      expect(warm.source).toBe(coldReport.source);
      expect(results(warm)).toEqual(results(coldReport));
      expect(warm.run.timedOut).toBe(coldReport.run.timedOut);
      // A run stopped at its limit has no exit code of its own to compare (the cold one's depends on which process the SIGTERM ends first).
      if (!coldReport.run.timedOut) expect(warm.run.exitCode).toBe(coldReport.run.exitCode);
      expect(warm.run.limit).toEqual(coldReport.run.limit);
      expect(warm.run.argv).toEqual(
        coldReport.run.argv.map((a) =>
          a.startsWith("--test-reporter-destination=/")
            ? warm.run.argv.find((w) => w.startsWith("--test-reporter-destination=/"))
            : a,
        ),
      );
      seen.push(named(warm));
    }
    expect(seen[0]).toEqual(["adds=fail", "counts down=pass", "scales=pass"]);
    expect(seen[1]).toEqual(["adds=pass", "counts down=pass", "scales=pass"]);
    expect(seen[2]).toEqual(seen[0]);
    expect(seen[4]).toEqual(seen[1]);
    expect(slot.stats).toMatchObject({ warm: 5, cold: 0 });
  }, 300_000);

  it("stops a test at the per-test limit as a cold run does", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    // An asynchronous wait that never ends: node's --test-timeout stops that test alone.
    await writeFile(join(dir, "lib.js"), `${lib("a + b")}export const never = () => new Promise(() => {});\n`);
    await writeFile(
      join(dir, "test/calc.test.js"),
      `${FILES["test/calc.test.js"] ?? ""}test("waits", async () => { const { never } = await import("../lib.js"); await never(); });\n`,
    );
    const limit = { timeoutMs: 30_000, reason: "the candidate limit", perTestMs: 1500 };
    const ids = [...IDS, "waits"];
    const warm = await slot.run({ kind: "tests", ids }, limit);
    const coldReport = await cold.run(dir, { kind: "tests", ids }, undefined, limit);
    expect(results(warm)).toEqual(results(coldReport));
    expect(named(warm)).toContain("waits=fail");
    expect(warm.run.limit).toEqual(coldReport.run.limit);
    expect(warm.run.limit?.name).toBe("test-time");
    expect(slot.stats.warm).toBe(1);
  }, 300_000);

  it("sees a candidate's changes to test files and package.json as a cold run does", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(join(dir, "lib.js"), lib("a + b"));
    await writeFile(
      join(dir, "test/calc.test.js"),
      (FILES["test/calc.test.js"] ?? "").replace("scale(3), 6", "scale(3), 7"),
    );
    const editedTest = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(editedTest)).toEqual(results(await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT)));
    expect(named(editedTest)).toContain("scales=fail");

    // CommonJS now: the ESM test file no longer loads, warm as cold.
    await writeFile(join(dir, "test/calc.test.js"), FILES["test/calc.test.js"] ?? "");
    await writeFile(
      join(dir, "package.json"),
      JSON.stringify({ name: "calc", type: "commonjs", scripts: { test: "node --test" } }),
    );
    await writeFile(
      join(dir, "test/calc.test.js"),
      (FILES["test/calc.test.js"] ?? "").replaceAll(
        /^import (\{[^}]*\}|\w+) from ("[^"]+");$/gm,
        "const $1 = require($2);",
      ),
    );
    const commonjs = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    const coldCommonjs = await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT);
    expect(results(commonjs)).toEqual(results(coldCommonjs));
    expect(commonjs.run.exitCode).toBe(coldCommonjs.run.exitCode);
    expect(commonjs.run.exitCode).not.toBe(0);
    expect(slot.stats).toMatchObject({ warm: 2, cold: 0 });
  }, 300_000);

  it("runs cold when its zygote dies, and warm again with the next one", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir);
    await slot.prepare({ kind: "tests", ids: IDS });
    const idle = zygotesIn(dir);
    expect(idle).toHaveLength(1);
    process.kill(idle[0] as number, "SIGKILL");
    await writeFile(join(dir, "lib.js"), lib("a * b"));
    const afterDeath = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(afterDeath)).toEqual(results(await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT)));
    expect(named(afterDeath)).toContain("adds=fail");
    const next = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
    expect(results(next)).toEqual(results(afterDeath));
    // The dead one is replaced (warm, by a fresh zygote) or the run went cold: never its stale answer.
    expect(slot.stats.warm + slot.stats.cold).toBe(2);
    expect(slot.stats.warm).toBeGreaterThanOrEqual(1);
    expect(slot.stats.starts).toBeGreaterThanOrEqual(3);
  }, 300_000);

  it("has no more access than a cold run: hidden files stay hidden, and the socket is not in the tests' environment", async () => {
    const secretDir = await mkdtemp(join(tmpdir(), "autogen-warm-secret-"));
    dirs.push(secretDir);
    const secret = join(secretDir, "secret.txt");
    await writeFile(secret, "canary-warm-node-7c2e");
    const dir = await workspace();
    await writeFile(
      join(dir, "test/secret.test.js"),
      [
        'import { test } from "node:test";',
        'import assert from "node:assert/strict";',
        'import { readFileSync, writeFileSync } from "node:fs";',
        `test("secret hidden", () => { assert.throws(() => readFileSync(${JSON.stringify(secret)})); });`,
        `test("no write outside", () => { assert.throws(() => writeFileSync(${JSON.stringify(join(secretDir, "planted"))}, "x")); });`,
        'test("no warm socket", () => { assert.equal(Object.keys(process.env).filter((k) => k.startsWith("AUTOGEN_WARM")).length, 0); });',
        "",
      ].join("\n"),
    );
    const { slot } = setup(dir);
    const ids = ["secret hidden", "no write outside", "no warm socket"];
    await slot.prepare({ kind: "tests", ids });
    const report = await slot.run({ kind: "tests", ids }, LIMIT);
    expect(slot.stats.warm).toBe(1);
    // The other test file, with nothing selected in it, is reported as a passing file, as cold.
    expect(named(report)).toEqual([...ids.map((id) => `${id}=pass`), "test/calc.test.js=pass"].sort());
    expect(await readFile(secret, "utf8")).toBe("canary-warm-node-7c2e");
    await expect(readFile(join(secretDir, "planted"), "utf8")).rejects.toThrow();
  }, 300_000);

  it("runs a plain node script warm, judged by its exit code as cold", async () => {
    const dir = await workspace({
      "check.js": 'import { ok } from "./lib.js";\nprocess.exit(ok() ? 0 : 3);\n',
      "lib.js": "export const ok = () => false;\n",
      "package.json": '{"type":"module"}',
    });
    const { cold, slot } = setup(dir, "node check.js");
    await slot.prepare({ kind: "all" });
    const failing = await slot.run({ kind: "all" }, LIMIT);
    expect(failing.run.exitCode).toBe(3);
    await writeFile(join(dir, "lib.js"), "export const ok = () => true;\n");
    const passing = await slot.run({ kind: "all" }, LIMIT);
    expect(passing.run.exitCode).toBe(0);
    expect((await cold.run(dir, { kind: "all" }, undefined, LIMIT)).run.exitCode).toBe(0);
    expect(slot.stats.warm).toBe(2);
  }, 300_000);

  it("runs a single-file node --test in the zygote's own process with the cold run's results: pass, fail, per-test timeout; a loop past the per-test CPU limit ends the zygote and runs cold", async () => {
    const dir = await workspace();
    const command = "node --test test/calc.test.js";
    const { cold, slot } = setup(dir, command);
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(
      join(dir, "test/calc.test.js"),
      `${FILES["test/calc.test.js"] ?? ""}test("waits", async () => { if (process.env.NEVER !== undefined) return; await new Promise(() => {}); });\n`,
    );
    const cases = [
      { text: lib("a * b"), limit: LIMIT, ids: IDS },
      { text: lib("a + b"), limit: LIMIT, ids: IDS },
      { text: lib("a + b"), limit: { ...LIMIT, perTestMs: 1500 }, ids: [...IDS, "waits"] },
      // A loop: 1.5 s of CPU stops it however busy the machine is; the run's wall limit is far off.
      { text: lib("a + b", "n -= 2"), limit: { ...LIMIT, perTestMs: 1500 }, ids: IDS },
      { text: lib("a - b"), limit: LIMIT, ids: IDS },
    ];
    const seen: string[][] = [];
    for (const { text, limit, ids } of cases) {
      await writeFile(join(dir, "lib.js"), text);
      const warm = await slot.run({ kind: "tests", ids }, limit);
      const coldReport = await cold.run(dir, { kind: "tests", ids }, undefined, limit);
      expect(warm.source).toBe(coldReport.source);
      expect(results(warm)).toEqual(results(coldReport));
      expect(warm.run.timedOut).toBe(coldReport.run.timedOut);
      if (!coldReport.run.timedOut) expect(warm.run.exitCode).toBe(coldReport.run.exitCode);
      expect(warm.run.limit).toEqual(coldReport.run.limit);
      seen.push(named(warm));
    }
    expect(seen[0]).toEqual(["adds=fail", "counts down=pass", "scales=pass"]);
    expect(seen[1]).toEqual(["adds=pass", "counts down=pass", "scales=pass"]);
    expect(seen[2]).toContain("waits=fail");
    expect(seen[4]).toEqual(seen[0]);
    // The loop (case 4) is stopped in process at the per-test CPU limit and run again cold, where the watchdog names it.
    expect(seen[3]).toContain("counts down=fail");
    expect(slot.stats).toMatchObject({ warm: 4, cold: 1, inProcess: 4 });
  }, 300_000);

  it("gives a test that ends the process or sets its exit code to a cold run, and keeps two test files apart (child process)", async () => {
    const dir = await workspace();
    const { cold, slot } = setup(dir, "node --test test/calc.test.js");
    await slot.prepare({ kind: "tests", ids: IDS });
    await writeFile(join(dir, "lib.js"), lib("a + b"));
    for (const ending of ["process.exit(0);", "process.exitCode = 3;"]) {
      await writeFile(
        join(dir, "test/calc.test.js"),
        (FILES["test/calc.test.js"] ?? "").replace(
          "assert.equal(add(1, 2), 3);",
          `${ending} assert.equal(add(1, 2), 3);`,
        ),
      );
      const warm = await slot.run({ kind: "tests", ids: IDS }, LIMIT);
      const coldReport = await cold.run(dir, { kind: "tests", ids: IDS }, undefined, LIMIT);
      expect(results(warm)).toEqual(results(coldReport));
      expect(warm.run.exitCode).toBe(coldReport.run.exitCode);
    }
    expect(slot.stats).toMatchObject({ warm: 0, cold: 2, inProcess: 0 });

    // Two files that would see each other's globals in one process: each file its own process, warm as cold.
    const global = (name: string) =>
      `import { test } from "node:test";\nimport assert from "node:assert/strict";\ntest("${name}", () => { assert.equal(globalThis.shared, undefined); globalThis.shared = "${name}"; });\n`;
    await writeFile(join(dir, "test/x.test.js"), global("x"));
    await writeFile(join(dir, "test/y.test.js"), global("y"));
    const pair = setup(dir, "node --test test/x.test.js test/y.test.js");
    await pair.slot.prepare({ kind: "tests", ids: ["x", "y"] });
    const warm = await pair.slot.run({ kind: "tests", ids: ["x", "y"] }, LIMIT);
    const coldReport = await pair.cold.run(dir, { kind: "tests", ids: ["x", "y"] }, undefined, LIMIT);
    expect(results(warm)).toEqual(results(coldReport));
    expect(named(warm)).toEqual(["x=pass", "y=pass"]);
    expect(pair.slot.stats).toMatchObject({ warm: 1, cold: 0, inProcess: 0 });
  }, 300_000);

  it("is offered for node --test and node scripts only when warm runs are on", async () => {
    const dir = await workspace();
    expect(localVerifier(detectRunner(dir, "node --test"), { timeoutMs: 1000 }).openWarm).toBeUndefined();
    expect(localVerifier(detectRunner(dir, "node --test"), { timeoutMs: 1000, warm: false }).openWarm).toBeUndefined();
    expect(localVerifier(detectRunner(dir, "make check"), { timeoutMs: 1000, warm: true }).openWarm).toBeUndefined();
    expect(localVerifier(detectRunner(dir, "node --test"), { timeoutMs: 1000, warm: true }).openWarm).toBeTypeOf(
      "function",
    );
  });
});
