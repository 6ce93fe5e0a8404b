// A test in `node --test` that loops synchronously blocks --test-timeout: our watchdog
// (resources/node/autogen-test-watchdog.cjs, `node --require` it, which node --test passes to each test file's process) stops
// it and prints which test it was. Here: the environment that loads it, and reading its
// lines back into the report, the test named as failing in place of its killed file.
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { TestCaseResult, TestReport } from "./test-report.ts";

export const NODE_WATCHDOG = fileURLToPath(new URL("../../resources/node/autogen-test-watchdog.cjs", import.meta.url));

const lineSchema = z.object({
  file: z.string().max(4096),
  test: z.string().max(1024),
  ms: z.number().positive(),
  basis: z.enum(["cpu", "wall"]).default("cpu"),
});
const MARKER = /autogen-test-timeout: (\{.*\})/g;

/** The limits for the watchdog (CPU time; wall-clock time for a test that blocks); node passes the `--require` of `watchdogArgs` on to each test file's process. */
export function watchdogEnv(perTestMs: number, perTestWallMs?: number): Record<string, string> {
  return {
    AUTOGEN_TEST_TIMEOUT_MS: String(Math.ceil(perTestMs)),
    ...(perTestWallMs !== undefined ? { AUTOGEN_TEST_WALL_TIMEOUT_MS: String(Math.ceil(perTestWallMs)) } : {}),
  };
}

export function watchdogArgs(): string[] {
  return [`--require=${NODE_WATCHDOG}`];
}

/** Each test the watchdog stopped becomes a failing test ("timed out after 1 s of CPU time"), replacing its file's own failure. */
export function readWatchdogTimeouts(report: TestReport, workspace: string): void {
  const base = workspace.replace(/\/?$/, "/");
  for (const match of report.run.output.matchAll(MARKER)) {
    let parsed: z.infer<typeof lineSchema>;
    try {
      const result = lineSchema.safeParse(JSON.parse(match[1] ?? ""));
      if (!result.success) continue;
      parsed = result.data;
    } catch {
      continue;
    }
    const file = parsed.file.startsWith(base) ? parsed.file.slice(base.length) : parsed.file;
    const id = `${file} > test > ${parsed.test}`;
    const seconds = Math.round(parsed.ms / 100) / 10;
    const stopped: TestCaseResult = {
      id,
      name: parsed.test,
      file,
      status: "fail",
      durationMs: parsed.ms,
      message:
        parsed.basis === "cpu"
          ? `timed out after ${String(seconds)} s of CPU time (the per-test limit; the test looped synchronously)`
          : `timed out after ${String(seconds)} s of wall-clock time (the per-test limit for a test that blocks; it blocked synchronously)`,
    };
    // The file's own entry (its process was killed) says only "test failed": the named test replaces it.
    report.tests = report.tests.filter((t) => t.id !== id && !(t.file === file && t.name === file));
    report.tests.push(stopped);
  }
}
