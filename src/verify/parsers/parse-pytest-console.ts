// Fallback when pytest wrote no JUnit file (it crashed, or was stopped): the `-rA`
// short summary lines `PASSED id`, `FAILED id - message`, `ERROR id - message`,
// `SKIPPED [n] file:line: reason`.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult, TestStatus } from "../test-report.ts";

const LINE = /^(PASSED|FAILED|ERROR|XFAIL|XPASS|SKIPPED)\s+(\S+)(?:\s+-\s+(.*))?$/;

export function parsePytestConsole(output: string): TestCaseResult[] {
  const results = new Map<string, TestCaseResult>();
  for (const raw of stripVTControlCharacters(output).split("\n")) {
    const match = LINE.exec(raw.trim());
    if (!match) continue;
    const [, word, id, message] = match as unknown as [string, string, string, string | undefined];
    if (word === "SKIPPED") continue; // skip lines carry a location, not an id
    const status: TestStatus =
      word === "PASSED" ? "pass" : word === "XFAIL" ? "skip" : word === "ERROR" ? "error" : "fail";
    const [file] = id.split("::");
    results.set(id, { id, name: id.split("::").at(-1) ?? id, file, status, message: message?.trim() });
  }
  return [...results.values()];
}
