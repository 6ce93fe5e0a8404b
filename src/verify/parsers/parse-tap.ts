// TAP 13 as node --test writes it: nested `# Subtest:` blocks with `ok` / `not ok`
// lines and a YAML block saying whether each entry is a test or a suite.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../test-report.ts";
import { readTapYaml } from "./tap-yaml.ts";

const RESULT = /^(\s*)(ok|not ok) \d+ - (.*?)(?: # (SKIP|TODO)\b.*)?$/;

export function parseTap(output: string): TestCaseResult[] {
  const lines = stripVTControlCharacters(output).split("\n");
  const results: TestCaseResult[] = [];
  const stack: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const subtest = /^(\s*)# Subtest: (.*)$/.exec(line);
    if (subtest) {
      const depth = (subtest[1] ?? "").length / 4;
      stack.length = depth;
      stack[depth] = subtest[2] ?? "";
      continue;
    }
    const match = RESULT.exec(line);
    if (!match) continue;
    const depth = (match[1] ?? "").length / 4;
    const name = match[3] ?? "";
    const yaml: Record<string, string | undefined> = readTapYaml(lines, i + 1, { unquote: true });
    if (yaml.type === "suite") continue;
    const path = [...stack.slice(0, depth), name];
    results.push({
      id: path.join(" > "),
      name,
      file: yaml.location?.replace(/:\d+:\d+$/, ""),
      status: match[4] ? "skip" : match[2] === "ok" ? "pass" : "fail",
      durationMs: yaml.duration_ms ? Math.round(Number(yaml.duration_ms)) : undefined,
      // The error whole, line by line: node:assert's `+ actual - expected` diff is the expected and actual values.
      message: yaml.error ? [yaml.name, yaml.error].filter(Boolean).join(": ") : undefined,
      details: yaml.stack || undefined,
    });
  }
  return results;
}
