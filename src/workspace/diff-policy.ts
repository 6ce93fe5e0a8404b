// What a candidate change may do: stay off protected paths and inside allowed ones, stay
// within the diff budget, and leave the tests alone unless the task asked to change them.
// The test-tampering guard's findings travel with the candidate into the report.
import { matchesAny } from "./glob.ts";
import { parseDiff, type DiffFile } from "./parse-diff.ts";
import { importPatchesIn, pluginCodeIn } from "./run-changing-code.ts";
import { testInfrastructureChange, type FileSides } from "./test-infrastructure.ts";

/** `allowTestInfrastructure`: path patterns of test infrastructure the maintainer opened on purpose. */
export type PolicyConfig = {
  allowed: readonly string[];
  protected: readonly string[];
  allowTestInfrastructure?: readonly string[] | undefined;
  maxFiles: number;
  maxLines: number;
};

export type Violation = {
  rule: "protected-path" | "outside-allowed-paths" | "test-infrastructure" | "diff-budget";
  detail: string;
};

export type TamperKind =
  | "test-deleted"
  | "test-renamed"
  | "test-removed"
  | "skip-added"
  | "only-added"
  | "early-return"
  | "assertion-removed"
  | "expected-changed"
  | "snapshot-rewritten"
  | "patch-at-import"
  | "exit-added";

export type TamperFinding = { kind: TamperKind; file: string; line?: number | undefined; detail: string };

export type PolicyVerdict = { ok: boolean; violations: Violation[]; tampering: TamperFinding[] };

// Also the module-wide forms (`pytestmark = pytest.mark.skip`, `pytest.importorskip`, `raise unittest.SkipTest`,
// `__test__ = False`) and the conditional ones (`it.skipIf`, `test.runIf`).
const SKIP = new RegExp(
  [
    String.raw`\bpytest\.mark\.(skip|skipif|xfail)\b|\bmark\.(skip|skipif|xfail)\b|\bpytest\.(skip|xfail|importorskip)\(|\bimportorskip\(`,
    String.raw`@unittest\.(skip\w*|expectedFailure)|\bSkipTest\b|\.skipTest\(|\b__test__\s*=\s*False\b`,
    String.raw`\b(it|test|describe|context|suite)\.(skip|todo|skipIf|runIf|fails)\b|\bx(it|describe|test|context)\(`,
    String.raw`\bt\.Skip(Now|f)?\(|@(Disabled|Ignore)\b|#\[ignore\]|\.skip\(\)`,
  ].join("|"),
);
const ONLY = /\b(it|test|describe|context|suite)\.only\b|\bf(it|describe)\(/;
/** A bare return: added in a test file, it ends the test before its assertions. */
const BARE_RETURN = /^\s*return\s*(None)?\s*;?\s*(#.*|\/\/.*)?$/;
/** A test's definition and its name: Python `def test_x(` / `class TestX`, JavaScript `it("x"` / `test("x"`. */
const TEST_DEFINITION =
  /^\s*(?:async\s+)?def\s+(test\w*)\s*\(|^\s*class\s+(Test\w*)\b|\b[xf]?(?:it|test)(?:\.\w+)?\s*\(\s*(["'`])(.+?)\3/;
const ASSERTION =
  /\bassert\w*\b|\bexpect\(|\bshould\b|\bt\.(Error|Fatal|Fail)|\bassertThat\(|\bassert_eq!|\bself\.assert/;
const OPEN_IT = "the maintainer can open it by name in .github/autogen.yml (paths.allowTestInfrastructure)";
const SNAPSHOT = /(^|\/)__snapshots__\/|\.snap$|(^|\/)snapshots?\//;

/**
 * `sides`: a changed file's text before and after, so files holding test settings beside
 * ordinary ones (pyproject.toml, package.json) are judged by their test sections; without
 * it any change to such a file counts as a change to its test sections.
 */
export type PolicyOptions = {
  isTestFile: (path: string) => boolean;
  testsAskedToChange?: readonly string[];
  sides?: ((file: DiffFile) => FileSides | undefined) | undefined;
};

export function evaluateDiffPolicy(diff: string, config: PolicyConfig, options: PolicyOptions): PolicyVerdict {
  const files = parseDiff(diff);
  const violations: Violation[] = [];
  const paths = new Set(files.flatMap((f) => [f.oldPath, f.newPath]).filter((p): p is string => p !== null));
  for (const path of paths) {
    if (matchesAny(path, config.protected))
      violations.push({
        rule: "protected-path",
        detail: `${path} is protected (paths.protected); the maintainer must allow it in .github/autogen.yml`,
      });
    else if (!matchesAny(path, config.allowed))
      violations.push({ rule: "outside-allowed-paths", detail: `${path} is outside paths.allowed` });
  }
  const opened = config.allowTestInfrastructure ?? [];
  for (const file of files) {
    for (const path of new Set([file.oldPath, file.newPath])) {
      if (path === null || matchesAny(path, config.protected) || (opened.length > 0 && matchesAny(path, opened)))
        continue;
      const change = testInfrastructureChange(path, options.sides?.(file));
      if (change) violations.push({ rule: "test-infrastructure", detail: `${change.detail}; ${OPEN_IT}` });
    }
    // A module of plugin or hook code is test infrastructure wherever it is (a test file's pytest_plugins loads it).
    const plugin = opened.length > 0 && matchesAny(file.newPath ?? "", opened) ? undefined : pluginCodeIn(file);
    if (plugin && !matchesAny(plugin.file, config.protected))
      violations.push({
        rule: "test-infrastructure",
        detail: `${plugin.file}:${String(plugin.line)} adds pytest plugin or hook code ("${plugin.text}"): test infrastructure; ${OPEN_IT}`,
      });
  }
  const lines = files.reduce((n, f) => n + f.added.length + f.removed.length, 0);
  if (files.length > config.maxFiles)
    violations.push({
      rule: "diff-budget",
      detail: `${files.length} files changed; the limit is ${config.maxFiles} (diff.maxFiles)`,
    });
  if (lines > config.maxLines)
    violations.push({
      rule: "diff-budget",
      detail: `${lines} lines changed; the limit is ${config.maxLines} (diff.maxLines)`,
    });
  const asked = new Set(options.testsAskedToChange ?? []);
  const tampering = files.flatMap((f) => tamperingIn(f, options.isTestFile, asked, options.sides?.(f)?.after));
  return { ok: violations.length === 0 && tampering.length === 0, violations, tampering };
}

function tamperingIn(
  file: DiffFile,
  isTestFile: (path: string) => boolean,
  asked: ReadonlySet<string>,
  after?: string | null,
): TamperFinding[] {
  const path = file.newPath ?? file.oldPath ?? "";
  const findings: TamperFinding[] = [];
  if (SNAPSHOT.test(path) && file.oldPath !== null)
    findings.push({ kind: "snapshot-rewritten", file: path, detail: "a stored snapshot was rewritten" });
  if (!isTestFile(file.oldPath ?? path) && !isTestFile(path)) return findings;
  if (asked.has(path) || (file.oldPath && asked.has(file.oldPath))) return findings;
  if (file.newPath === null && file.oldPath)
    return [...findings, { kind: "test-deleted", file: file.oldPath, detail: "a test file was deleted" }];
  if (file.renamed && file.oldPath && file.newPath)
    findings.push({ kind: "test-renamed", file: file.oldPath, detail: `renamed to ${file.newPath}` });
  // New or old, a test file that patches what it imports or ends the process changes the other tests' outcome.
  for (const patch of importPatchesIn(file, after))
    findings.push({ kind: patch.kind, file: path, line: patch.line, detail: patch.detail });
  if (file.oldPath === null) return findings; // otherwise a new test file adds evidence; it takes none away
  for (const added of file.added) {
    if (SKIP.test(added.text))
      findings.push({ kind: "skip-added", file: path, line: added.line, detail: added.text.trim() });
    if (ONLY.test(added.text))
      findings.push({ kind: "only-added", file: path, line: added.line, detail: added.text.trim() });
    if (BARE_RETURN.test(added.text))
      findings.push({
        kind: "early-return",
        file: path,
        line: added.line,
        detail: `${added.text.trim()} (ends a test before its checks)`,
      });
  }
  // A test whose definition is removed and not written again (renamed to `_test_x`, `check_x`) is no longer collected.
  const kept = new Set(file.added.map((a) => testName(a.text)).filter((n) => n !== undefined));
  for (const removed of file.removed) {
    const name = testName(removed.text);
    if (name !== undefined && !kept.has(name))
      findings.push({
        kind: "test-removed",
        file: path,
        line: removed.line,
        detail: `test ${name} removed or renamed: ${removed.text.trim()}`,
      });
  }
  const removedAsserts = file.removed.filter((r) => ASSERTION.test(r.text));
  const addedAsserts = file.added.filter((a) => ASSERTION.test(a.text));
  const changed = Math.min(removedAsserts.length, addedAsserts.length);
  for (let i = 0; i < changed; i++) {
    const before = removedAsserts[i];
    const after = addedAsserts[i];
    if (before && after && before.text.trim() !== after.text.trim())
      findings.push({
        kind: "expected-changed",
        file: path,
        line: after.line,
        detail: `${before.text.trim()} → ${after.text.trim()}`,
      });
  }
  for (const removed of removedAsserts.slice(changed))
    findings.push({ kind: "assertion-removed", file: path, line: removed.line, detail: removed.text.trim() });
  return findings;
}

function testName(line: string): string | undefined {
  const m = TEST_DEFINITION.exec(line);
  return m ? (m[1] ?? m[2] ?? m[4]) : undefined;
}
