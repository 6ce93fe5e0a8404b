// Console output of runners that print a tree of suites and tests with a mark per test:
// jest (✓ ✕ ○), mocha (✔ N) -), vitest (✓ × ↓). Suites are the indented lines without a
// mark; the file comes from jest's PASS/FAIL header or vitest's file line.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult, TestStatus } from "../test-report.ts";

/** `details`: a failure's details begin (jest's `●`), read past until the next file's header. */
type Dialect = {
  mark: RegExp;
  status: (mark: string) => TestStatus;
  file?: RegExp;
  suite: RegExp;
  stop?: RegExp;
  details?: RegExp;
};

const DIALECTS = {
  jest: {
    mark: /^(\s*)(✓|✕|○ skipped|○|✎ todo)\s+(.*?)(?: \(\d+(?:\.\d+)? m?s\))?$/,
    status: (m: string) => (m === "✓" ? "pass" : m === "✕" ? "fail" : "skip"),
    file: /^(?:PASS|FAIL)\s+(\S+)/,
    suite: /^(\s+)(\S.*)$/,
    // Each failing file's details follow its tree; the next file's tree comes after them.
    details: /^\s*●/,
    stop: /^Test Suites:/,
  },
  mocha: {
    mark: /^(\s*)(✔|✓|\d+\)|-)\s+(.*?)(?: \(\d+ms\))?$/,
    status: (m: string) => (m === "✔" || m === "✓" ? "pass" : m === "-" ? "skip" : "fail"),
    suite: /^(\s+)(\S.*)$/,
    stop: /^\s+\d+ passing\b/,
  },
  vitest: {
    mark: /^(\s*)(✓|×|↓)\s+(.*?)(?: \d+m?s)?$/,
    status: (m: string) => (m === "✓" ? "pass" : m === "×" ? "fail" : "skip"),
    file: /^\s*[❯✓×]\s+(\S+\.[cm]?[jt]sx?)\b/,
    suite: /^$^/,
    stop: /Failed Tests \d+|Test Files /,
  },
} satisfies Record<string, Dialect>;

export function parseTreeConsole(output: string, dialect: keyof typeof DIALECTS): TestCaseResult[] {
  const d: Dialect = DIALECTS[dialect];
  const results: TestCaseResult[] = [];
  const suites: Array<{ indent: number; name: string }> = [];
  let file: string | undefined;
  let inDetails = false;
  for (const raw of stripVTControlCharacters(output).split("\n")) {
    const line = raw.replace(/\s+$/, "");
    if (d.stop?.test(line)) {
      if (dialect !== "vitest" || /Test Files|Failed Tests/.test(line)) break;
    }
    const fileMatch = d.file?.exec(line);
    if (d.details?.test(line)) inDetails = true;
    if (fileMatch) inDetails = false;
    if (inDetails) continue;
    if (fileMatch && !d.mark.exec(line)?.[3]?.includes(" ")) {
      file = fileMatch[1];
      suites.length = 0;
      if (dialect === "vitest") continue;
    }
    if (fileMatch && dialect === "jest") continue;
    const mark = d.mark.exec(line);
    if (mark) {
      const indent = (mark[1] ?? "").length;
      const name = mark[3] ?? "";
      while (suites.length && (suites.at(-1)?.indent ?? 0) >= indent) suites.pop();
      results.push({
        id: [...(file ? [file] : []), ...suites.map((s) => s.name), name].join(" > "),
        name,
        file,
        status: d.status(mark[2] ?? ""),
      });
      continue;
    }
    const suite = d.suite.exec(line);
    if (suite && line.trim()) {
      const indent = (suite[1] ?? "").length;
      while (suites.length && (suites.at(-1)?.indent ?? 0) >= indent) suites.pop();
      suites.push({ indent, name: (suite[2] ?? "").trim() });
    }
  }
  return results;
}
