// `go test -v` output: `--- PASS|FAIL|SKIP: TestName (0.00s)` lines, subtests indented,
// with the test's own log lines above them as the failure message.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../test-report.ts";

const RESULT = /^\s*--- (PASS|FAIL|SKIP): (\S+) \((\d+(?:\.\d+)?)s\)$/;

export function parseGoTest(output: string): TestCaseResult[] {
  const lines = stripVTControlCharacters(output).split("\n");
  const logs = new Map<string, string[]>();
  let current: string | undefined;
  const results: TestCaseResult[] = [];
  for (const line of lines) {
    const run = /^=== (?:RUN|CONT|PAUSE)\s+(\S+)$/.exec(line);
    if (run) {
      current = run[1];
      continue;
    }
    const result = RESULT.exec(line);
    if (result) {
      const [, word, id, seconds] = result as unknown as [string, string, string, string];
      const log = logs.get(id);
      results.push({
        id,
        name: id.split("/").at(-1) ?? id,
        status: word === "PASS" ? "pass" : word === "FAIL" ? "fail" : "skip",
        durationMs: Math.round(Number(seconds) * 1000),
        message: word === "FAIL" && log?.length ? log.join("\n") : undefined,
      });
      continue;
    }
    if (current && /^\s{4}\S/.test(line) && !/^\s*--- /.test(line))
      logs.set(current, [...(logs.get(current) ?? []), line.trim()]);
  }
  // A parent whose only failure is a failing subtest is not a failure of its own.
  const failedChildren = new Set(
    results.filter((r) => r.status === "fail" && r.id.includes("/")).map((r) => r.id.split("/")[0]),
  );
  return results.filter((r) => !(r.status === "fail" && !r.message && failedChildren.has(r.id)));
}
