// The digest reads a log of any size in bounded memory: a child process (node --expose-gc)
// generates a 100 MB log as it is read, digests it with digestLogStream and reports the heap
// retained after collections along the way.
import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const Report = z.object({ bytes: z.number(), peakRetainedMb: z.number(), logLines: z.number(), text: z.string() });

describe("digestLogStream", () => {
  it("digests a 100 MB log within a fixed memory bound and still finds the failure", async () => {
    const script = fileURLToPath(new URL("../../fixtures/digest/stream-100mb-log.ts", import.meta.url));
    const { stdout } = await promisify(execFile)(process.execPath, ["--expose-gc", script], { maxBuffer: 1 << 20 });
    const report = Report.parse(JSON.parse(stdout));
    console.log(`100 MB log: ${report.logLines} lines, peak retained heap ${report.peakRetainedMb.toFixed(1)} MB`);
    expect(report.bytes).toBeGreaterThanOrEqual(100 * 1024 * 1024);
    expect(report.logLines).toBeGreaterThan(1_000_000);
    expect(report.text).toContain("src/parser.c:42:7: error: use of undeclared identifier 'tokn'");
    expect(report.text.split("\n").length).toBeLessThanOrEqual(30);
    // Holding the log would retain over 100 MB (a string) or several times that (lines); the
    // digester keeps capped tables, a window of lines and its best blocks.
    expect(report.peakRetainedMb).toBeLessThan(40);
  }, 600_000);
});
