// What a hostile test run can write into its V8 coverage folder (the test process has it
// writable): the localiser's reading is bounded in work and bytes, whatever the files say,
// and the bot's coverage preload does not change how a test's process dies.
import { spawn } from "node:child_process";
import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { describe, expect, it } from "vitest";
import { CoverageReader } from "../../../src/engine/template/coverage-reader.ts";
import { CoverageError } from "../../../src/engine/template/python-spectra.ts";
import { reportedFileFilter } from "../../../src/engine/template/reported-files.ts";
import { COVERAGE_PRELOAD } from "../../../src/verify/coverage-preload.ts";
import { ROOT } from "../../support/run-cli.ts";

function worktree(): { root: string; file: string } {
  const root = mkdtempSync(join(tmpdir(), "autogen-covread-"));
  mkdirSync(join(root, "src"));
  const file = join(root, "src", "a.js");
  writeFileSync(file, Array.from({ length: 200 }, (_, i) => `x${String(i)} = ${String(i)};`).join("\n") + "\n");
  return { root, file };
}

const entry = (file: string, ranges: number) => ({
  scriptId: "1",
  url: pathToFileURL(file).href,
  functions: [
    {
      functionName: "",
      isBlockCoverage: true,
      ranges: Array.from({ length: ranges }, (_, i) => ({ startOffset: i, endOffset: i + 1, count: 1 })),
    },
  ],
});

describe("reading a coverage folder a hostile run wrote", () => {
  it("stops at its work budget with a clear error, however many entries the file repeats", async () => {
    const { root, file } = worktree();
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    // 1,000 entries of 100 ranges over a file of 200 code lines: 3 x 10^5 lines and ranges to sweep.
    writeFileSync(
      join(dir, "coverage-1.json"),
      JSON.stringify({ result: Array.from({ length: 1000 }, () => entry(file, 100)) }),
    );
    const error = await new CoverageReader(root, { maxReadWork: 100_000 }).read(dir).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CoverageError);
    expect((error as Error).message).toMatch(
      /asks for more than 1e\+5 lines, mappings and ranges to be swept \(at src\/a\.js\)/,
    );
    // Within the budget the same folder is read, line counts and all.
    const { counts } = await new CoverageReader(root, { maxReadWork: 1_000_000 }).read(dir);
    expect(counts.get("src/a.js")?.size).toBeGreaterThan(0);
  });

  it("costs nothing for entries without ranges, however many (each once split its file again)", async () => {
    const { root } = worktree();
    // 200,000 code lines: splitting it for each of 20,000 empty entries took minutes.
    const big = join(root, "src", "big.js");
    writeFileSync(big, "y = 1;\n".repeat(200_000));
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    const empty = { scriptId: "1", url: pathToFileURL(big).href, functions: [] };
    writeFileSync(
      join(dir, "coverage-1.json"),
      JSON.stringify({ result: Array.from({ length: 20_000 }, () => empty) }),
    );
    const { counts } = await new CoverageReader(root, { maxReadWork: 1 }).read(dir);
    expect(counts.size).toBe(0);
  });

  it("reads an entry of 200,000 ranges over a 200,000-line file: the right counts, no stack overflow, no hours of lookups", async () => {
    const { root } = worktree();
    const big = join(root, "src", "big.js");
    writeFileSync(big, "y = 1;\n".repeat(200_000));
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    // One range per line (7 characters each), counted by its line number; and one around them all.
    const ranges = [
      { startOffset: 0, endOffset: 1_400_000, count: 0 },
      ...Array.from({ length: 200_000 }, (_, i) => ({ startOffset: i * 7, endOffset: i * 7 + 6, count: i + 1 })),
    ];
    writeFileSync(
      join(dir, "coverage-1.json"),
      JSON.stringify({
        result: [{ scriptId: "1", url: pathToFileURL(big).href, functions: [{ functionName: "", ranges }] }],
      }),
    );
    // 200,000 x 200,001 = 4 x 10^10 lookups searched range by range; 400,001 to sweep.
    const { counts } = await new CoverageReader(root).read(dir);
    const lines = counts.get("src/big.js");
    expect(lines?.size).toBe(200_000);
    expect([lines?.get(1), lines?.get(123_456), lines?.get(200_000)]).toEqual([1, 123_456, 200_000]);
  });

  it("leaves out a file the run names that the bot does not read (over its size cap), and reads the rest", async () => {
    const { root, file } = worktree();
    const huge = join(root, "src", "huge.js");
    writeFileSync(huge, "z = 1;\n".repeat(1_500_000));
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    const one = (path: string) => ({
      scriptId: "1",
      url: pathToFileURL(path).href,
      functions: [{ functionName: "", ranges: [{ startOffset: 0, endOffset: 100, count: 1 }] }],
    });
    writeFileSync(join(dir, "coverage-1.json"), JSON.stringify({ result: [one(huge), one(file)] }));
    const { counts } = await new CoverageReader(root).read(dir);
    expect([...counts.keys()]).toEqual(["src/a.js"]);
  });

  it("reads the preload's record files up to one budget in all: a record past it is left out", async () => {
    const { root, file } = worktree();
    writeFileSync(join(root, "src", "a.ts"), "export const x = 1;\n");
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    const map = Buffer.from(JSON.stringify({ version: 3, sources: ["a.ts"], mappings: "AAAA" })).toString("base64");
    const record = JSON.stringify({
      filename: file,
      length: 7,
      lineOffset: 0,
      columnOffset: 0,
      lines: [7],
      map: `data:application/json;base64,${map}`,
    });
    // The first record file (junk) takes most of a small budget; the second holds the record the coverage needs.
    writeFileSync(join(dir, "autogen-scripts-1.jsonl"), `${"x".repeat(4000)}\n`);
    writeFileSync(join(dir, "autogen-scripts-2.jsonl"), `${record}\n`);
    writeFileSync(
      join(dir, "coverage-1.json"),
      JSON.stringify({
        result: [entry(file, 1)].map((e) => ({
          ...e,
          functions: [{ ...e.functions[0], ranges: [{ startOffset: 0, endOffset: 7, count: 1 }] }],
        })),
      }),
    );
    const files = async (maxRecordBytes: number) => [
      ...(await new CoverageReader(root, { maxRecordBytes }).read(dir)).counts.keys(),
    ];
    // Within the budget: the script's lines are mapped to the TypeScript source.
    expect(await files(1_000_000)).toEqual(["src/a.ts"]);
    // Past it: the record is not read, and the lines come from the text on disk.
    expect(await files(4_100)).toEqual(["src/a.js"]);
  });

  it("leaves a test process's death by SIGTERM alone (signal-exit re-raises only when its handler is the only one)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "autogen-covdir-"));
    const script = join(dir, "victim.cjs");
    writeFileSync(
      script,
      `const { onExit } = require(${JSON.stringify(join(ROOT, "node_modules", "signal-exit", "dist", "cjs", "index.js"))});
onExit(() => {});
setInterval(() => {}, 1000);
console.log("ready");
`,
    );
    const child = spawn(process.execPath, ["--require", COVERAGE_PRELOAD, script], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", NODE_V8_COVERAGE: dir },
      stdio: ["ignore", "pipe", "inherit"],
    });
    await new Promise<void>((resolve) => child.stdout.on("data", () => resolve()));
    const exited = new Promise<NodeJS.Signals | null>((resolve) =>
      child.on("exit", (_code, signal) => resolve(signal)),
    );
    child.kill("SIGTERM");
    // Alive 30 s later means the signal was swallowed: then it is killed, and the signal seen is SIGKILL.
    const guard = setTimeout(() => child.kill("SIGKILL"), 30_000);
    const signal = await exited;
    clearTimeout(guard);
    expect(signal).toBe("SIGTERM");
  });

  it("names a dropped path the run chose cut to 200 characters (it reaches the progress and the report)", () => {
    const { root } = worktree();
    const filter = reportedFileFilter(root);
    const long = `/etc/${"@everyone-".repeat(100)}`;
    expect(filter.accept(long, { absolute: true })).toBeUndefined();
    expect(filter.dropped()).toEqual([`${long.slice(0, 200)}…`]);
  });
});
