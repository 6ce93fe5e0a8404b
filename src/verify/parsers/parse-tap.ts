// TAP 13 as node --test writes it: nested `# Subtest:` blocks with `ok` / `not ok`
// lines and a YAML block saying whether each entry is a test or a suite.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../test-report.ts";

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
    const yaml = readYaml(lines, i + 1);
    if (yaml.type === "suite") continue;
    const path = [...stack.slice(0, depth), name];
    results.push({
      id: path.join(" > "),
      name,
      file: yaml.location?.replace(/:\d+:\d+$/, ""),
      status: match[4] ? "skip" : match[2] === "ok" ? "pass" : "fail",
      durationMs: yaml.duration_ms ? Math.round(Number(yaml.duration_ms)) : undefined,
      message: yaml.error ? [yaml.name, yaml.error].filter(Boolean).join(": ") : undefined,
    });
  }
  return results;
}

/** The YAML diagnostic block after a result: keys at the block's own indentation, block scalars (`|-`) joined. */
function readYaml(lines: string[], from: number): Record<string, string | undefined> {
  const out: Record<string, string | undefined> = {};
  if (!/^\s*---$/.test(lines[from] ?? "")) return out;
  const base = /^(\s*)\S/.exec(lines[from + 1] ?? "")?.[1]?.length ?? 0;
  let key: string | undefined;
  for (let i = from + 1; i < lines.length && !/^\s*\.\.\.$/.test(lines[i] ?? ""); i++) {
    const line = lines[i] ?? "";
    const indent = /^(\s*)/.exec(line)?.[1]?.length ?? 0;
    const kv = indent === base ? /^\s*([A-Za-z_]+):\s?(.*)$/.exec(line) : null;
    if (kv) {
      key = kv[1] as string;
      const value = (kv[2] ?? "").trim();
      out[key] = value === "|-" || value === "|" ? "" : value.replace(/^'(.*)'$/, "$1");
    } else if (key && indent > base && line.trim()) {
      out[key] = out[key] ? `${out[key]} ${line.trim()}` : line.trim();
    }
  }
  return out;
}
