// Reads the JUnit report a sandboxed run wrote: a missing or malformed report (the runner
// crashed before finishing it) reads as absent, so the caller falls back to the console.
import { JunitParseError, parseJunit } from "./parsers/parse-junit.ts";
import { readRunOutput } from "./read-run-output.ts";
import type { TestCaseResult } from "./test-report.ts";

const MAX_REPORT_BYTES = 64 * 1024 * 1024;

export async function readJunit(path: string, root: string): Promise<TestCaseResult[] | undefined> {
  // Written by the tests' side: a link, a FIFO or a report larger than any honest one is not read.
  const text = await readRunOutput(path, MAX_REPORT_BYTES);
  if (text === undefined) return undefined;
  try {
    return parseJunit(text, { root });
  } catch (error) {
    if (error instanceof JunitParseError) return undefined;
    throw error;
  }
}
