// Worker processes run file after file (vitest.config.ts), so what one file does to the process
// must not outlive it. A replaced module (vi.mock) or a stubbed variable or global would: such a
// file must be named in test/support/own-process-files.ts, and get a process of its own.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";
import { OWN_PROCESS_FILES } from "./support/own-process-files.ts";

const ROOT = join(import.meta.dirname, "..");
const OUTLIVES_THE_FILE = /\bvi\.(mock|doMock|stubEnv|stubGlobal)\(/;

function testFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === "fixtures" ? [] : testFiles(path);
    return entry.name.endsWith(".test.ts") ? [relative(ROOT, path)] : [];
  });
}

describe("files with a worker process of their own", () => {
  it("are named once and exist", () => {
    expect(new Set(OWN_PROCESS_FILES).size).toBe(OWN_PROCESS_FILES.length);
    for (const file of OWN_PROCESS_FILES) expect(existsSync(join(ROOT, file)), file).toBe(true);
  });

  it("include every file that replaces a module or stubs a variable or global", () => {
    // This file names the calls only in strings.
    const files = testFiles(join(ROOT, "test")).filter((file) => file !== "test/own-process-files.test.ts");
    expect(files.length).toBeGreaterThan(100);
    const needing = files.filter((file) => OUTLIVES_THE_FILE.test(readFileSync(join(ROOT, file), "utf8")));
    expect(needing.filter((file) => !OWN_PROCESS_FILES.includes(file))).toEqual([]);
    // And every listed file still needs its own process.
    expect(OWN_PROCESS_FILES.filter((file) => !needing.includes(file))).toEqual([]);
  });

  it("would catch each kind of call", () => {
    for (const sample of [
      'vi.mock("../x.ts", () => ({}))',
      "vi.doMock(path)",
      'vi.stubEnv("A", "b")',
      "vi.stubGlobal(",
    ])
      expect(OUTLIVES_THE_FILE.test(sample), sample).toBe(true);
    expect(OUTLIVES_THE_FILE.test("vi.fn()")).toBe(false);
  });
});
