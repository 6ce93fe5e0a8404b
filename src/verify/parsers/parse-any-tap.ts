// TAP from any producer: node --test's nested subtests, a flat `ok N - name` stream (ava
// --tap, node-tap's reporters, make targets printing TAP) and tape's assertions grouped
// under `# test name` comments, where the test is the group and fails with any of its
// assertions. Output that holds no TAP result line gives no tests.
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../test-report.ts";
import { parseTap } from "./parse-tap.ts";
import { readTapYaml } from "./tap-yaml.ts";

const RESULT = /^(ok|not ok)\b(?: (\d+))?(?: -)?(?: (.*?))?(?: # (SKIP|TODO)\b.*)?$/i;
/** tape's closing counts (`# tests 3`, `# pass  2`, `# ok`), not test names. */
const SUMMARY = /^# (tests|pass|fail|skip|todo|ok|not ok)\b(\s+\d+)?\s*$/;

export function parseAnyTap(output: string): TestCaseResult[] {
  const text = stripVTControlCharacters(output);
  if (/^\s*# Subtest: /m.test(text)) return parseTap(text);
  const lines = text.split("\n");
  if (!lines.some((l) => RESULT.test(l))) return [];
  const grouped = lines.some((l, i) => /^# \S/.test(l) && !SUMMARY.test(l) && RESULT.test(lines[i + 1] ?? ""));
  return grouped ? groupedResults(lines) : flatResults(lines);
}

function flatResults(lines: string[]): TestCaseResult[] {
  const results: TestCaseResult[] = [];
  for (let i = 0; i < lines.length; i++) {
    const match = RESULT.exec(lines[i] as string);
    if (!match) continue;
    const name = (match[3] ?? "").trim() || `test ${match[2] ?? String(results.length + 1)}`;
    const yaml = yamlBlock(lines, i + 1);
    results.push({
      id: uniqueId(results, name),
      name,
      status: statusOf(match),
      message: match[1] === "ok" ? undefined : failureMessage(name, yaml),
      details: yaml || undefined,
    });
  }
  return results;
}

/** tape: `# name` opens a test; its `ok`/`not ok` lines are assertions; `# SKIP name` is a skipped test. */
function groupedResults(lines: string[]): TestCaseResult[] {
  const results: TestCaseResult[] = [];
  let current: TestCaseResult | undefined;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    const header = /^# (.+)$/.exec(line);
    if (header && !SUMMARY.test(line)) {
      const skipped = /^SKIP\s+(.+)$/.exec(header[1] ?? "");
      const name = (skipped?.[1] ?? header[1] ?? "").trim();
      current = { id: uniqueId(results, name), name, status: skipped ? "skip" : "pass" };
      results.push(current);
      continue;
    }
    const match = RESULT.exec(line);
    if (!match) continue;
    current ??= (() => {
      const first: TestCaseResult = { id: "(outside any test)", name: "(outside any test)", status: "pass" };
      results.push(first);
      return first;
    })();
    if (match[1] !== "ok" && !match[4] && current.status !== "fail") {
      const assertion = (match[3] ?? "").trim();
      const yaml = yamlBlock(lines, i + 1);
      current.status = "fail";
      current.message = failureMessage(assertion, yaml);
      current.details = yaml || undefined;
    }
  }
  return results;
}

function statusOf(match: RegExpExecArray): TestCaseResult["status"] {
  if (match[4]) return "skip";
  return match[1]?.toLowerCase() === "ok" ? "pass" : "fail";
}

function uniqueId(results: TestCaseResult[], name: string): string {
  const taken = new Set(results.map((r) => r.id));
  if (!taken.has(name)) return name;
  let n = 2;
  while (taken.has(`${name} (${String(n)})`)) n++;
  return `${name} (${String(n)})`;
}

/** The indented YAML block (`---` … `...`) after a result line, as text. */
function yamlBlock(lines: string[], from: number): string {
  if (!/^\s+---\s*$/.test(lines[from] ?? "")) return "";
  const block: string[] = [];
  for (let i = from + 1; i < lines.length && !/^\s+\.\.\.\s*$/.test(lines[i] ?? ""); i++)
    block.push(lines[i] as string);
  return block.join("\n");
}

/**
 * The assertion and, from the YAML block, what was expected and what came: tape's
 * operator/expected/actual (a block scalar `expected: |-` read with its lines, as tape writes
 * any value util.inspect spreads over lines or marks as long), ava's name. The values stay
 * on their own lines (`expected: …` / `actual: …`) for the model to compare.
 */
function failureMessage(assertion: string, block: string): string {
  const yaml = readTapYaml(["  ---", ...block.split("\n")], 0, { unquote: false });
  const operator = yaml.operator?.trim();
  const head = [assertion, operator ? `(${operator})` : undefined].filter(Boolean).join(" ");
  const error = yaml.name?.trim();
  const lines = [
    error && error !== assertion ? `${error}: ${head}` : head,
    yaml.expected !== undefined ? `expected: ${yaml.expected}` : undefined,
    yaml.actual !== undefined ? `actual: ${yaml.actual}` : undefined,
  ];
  return lines.filter((l) => l !== undefined && l !== "").join("\n") || "failed";
}
