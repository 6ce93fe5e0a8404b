// What a candidate change may do: stay off protected paths and inside allowed ones, stay
// within the diff budget, and leave the tests alone unless the task asked to change them.
// The test-tampering guard's findings travel with the candidate into the report.
import { matchesAny } from "./glob.ts";
import { parseDiff, type DiffFile } from "./parse-diff.ts";

export type PolicyConfig = { allowed: readonly string[]; protected: readonly string[]; maxFiles: number; maxLines: number };

export type Violation = { rule: "protected-path" | "outside-allowed-paths" | "diff-budget"; detail: string };

export type TamperKind = "test-deleted" | "test-renamed" | "skip-added" | "only-added" | "assertion-removed" | "expected-changed" | "snapshot-rewritten";

export type TamperFinding = { kind: TamperKind; file: string; line?: number | undefined; detail: string };

export type PolicyVerdict = { ok: boolean; violations: Violation[]; tampering: TamperFinding[] };

const SKIP = /@pytest\.mark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail)\(|@unittest\.(skip|expectedFailure)|\b(it|test|describe|context|suite)\.(skip|todo)\b|\bx(it|describe|test)\(|\bt\.Skip(Now|f)?\(|@(Disabled|Ignore)\b|#\[ignore\]|\.skip\(\)/;
const ONLY = /\b(it|test|describe|context|suite)\.only\b|\bf(it|describe)\(/;
const ASSERTION = /\bassert\w*\b|\bexpect\(|\bshould\b|\bt\.(Error|Fatal|Fail)|\bassertThat\(|\bassert_eq!|\bself\.assert/;
const SNAPSHOT = /(^|\/)__snapshots__\/|\.snap$|(^|\/)snapshots?\//;

export function evaluateDiffPolicy(diff: string, config: PolicyConfig, options: { isTestFile: (path: string) => boolean; testsAskedToChange?: readonly string[] }): PolicyVerdict {
  const files = parseDiff(diff);
  const violations: Violation[] = [];
  const paths = new Set(files.flatMap((f) => [f.oldPath, f.newPath]).filter((p): p is string => p !== null));
  for (const path of paths) {
    if (matchesAny(path, config.protected)) violations.push({ rule: "protected-path", detail: `${path} is protected (paths.protected); the maintainer must allow it in .github/autogen.yml` });
    else if (!matchesAny(path, config.allowed)) violations.push({ rule: "outside-allowed-paths", detail: `${path} is outside paths.allowed` });
  }
  const lines = files.reduce((n, f) => n + f.added.length + f.removed.length, 0);
  if (files.length > config.maxFiles) violations.push({ rule: "diff-budget", detail: `${files.length} files changed; the limit is ${config.maxFiles} (diff.maxFiles)` });
  if (lines > config.maxLines) violations.push({ rule: "diff-budget", detail: `${lines} lines changed; the limit is ${config.maxLines} (diff.maxLines)` });
  const asked = new Set(options.testsAskedToChange ?? []);
  const tampering = files.flatMap((f) => tamperingIn(f, options.isTestFile, asked));
  return { ok: violations.length === 0 && tampering.length === 0, violations, tampering };
}

function tamperingIn(file: DiffFile, isTestFile: (path: string) => boolean, asked: ReadonlySet<string>): TamperFinding[] {
  const path = file.newPath ?? file.oldPath ?? "";
  const findings: TamperFinding[] = [];
  if (SNAPSHOT.test(path) && file.oldPath !== null) findings.push({ kind: "snapshot-rewritten", file: path, detail: "a stored snapshot was rewritten" });
  if (!isTestFile(file.oldPath ?? path) && !isTestFile(path)) return findings;
  if (asked.has(path) || (file.oldPath && asked.has(file.oldPath))) return findings;
  if (file.newPath === null && file.oldPath) return [...findings, { kind: "test-deleted", file: file.oldPath, detail: "a test file was deleted" }];
  if (file.renamed && file.oldPath && file.newPath) findings.push({ kind: "test-renamed", file: file.oldPath, detail: `renamed to ${file.newPath}` });
  if (file.oldPath === null) return findings; // a new test file adds evidence; it takes none away
  for (const added of file.added) {
    if (SKIP.test(added.text)) findings.push({ kind: "skip-added", file: path, line: added.line, detail: added.text.trim() });
    if (ONLY.test(added.text)) findings.push({ kind: "only-added", file: path, line: added.line, detail: added.text.trim() });
  }
  const removedAsserts = file.removed.filter((r) => ASSERTION.test(r.text));
  const addedAsserts = file.added.filter((a) => ASSERTION.test(a.text));
  const changed = Math.min(removedAsserts.length, addedAsserts.length);
  for (let i = 0; i < changed; i++) {
    const before = removedAsserts[i];
    const after = addedAsserts[i];
    if (before && after && before.text.trim() !== after.text.trim()) findings.push({ kind: "expected-changed", file: path, line: after.line, detail: `${before.text.trim()} → ${after.text.trim()}` });
  }
  for (const removed of removedAsserts.slice(changed)) findings.push({ kind: "assertion-removed", file: path, line: removed.line, detail: removed.text.trim() });
  return findings;
}
