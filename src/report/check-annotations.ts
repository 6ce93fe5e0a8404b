// Annotations for the `autogen` check run: the lines a job's change touches (from its
// diff's hunks) and the failures it explains (at the test file, and the line when the
// failure's traceback names one). Paths come from hostile text (a diff, test output), so
// only repository-relative paths with no `..`, no control characters and no backslash
// are kept: changed files must be among the files the engine changed, and a failure's
// file must exist in the worktree when the site is recorded.
import { existsSync } from "node:fs";
import type { CheckAnnotation } from "../forge/check-run-forge.ts";
import type { TestReport } from "../verify/test-report.ts";
import { failingTests } from "../verify/test-report.ts";
import type { AttributionResult } from "../verify/attribution.ts";
import { isForgedPath, safeRepoPath } from "../workspace/safe-path.ts";

/** Where a failing test is: kept in the job's checkpoint (the reports themselves are not). */
export type FailureSite = { id: string; path: string; line: number; message: string };

/** At most this many failure sites are kept per job, and this many annotations sent in all. */
export const MAX_FAILURE_SITES = 100;
export const MAX_ANNOTATIONS = 150;

export function isAnnotatablePath(path: string): boolean {
  return (
    path.length > 0 &&
    path.length <= 1024 &&
    !isForgedPath(path) &&
    !path.includes("\\") &&
    !path.startsWith("/") &&
    !/^[A-Za-z]:/.test(path) &&
    !path.split("/").some((p) => p === "" || p === ".")
  );
}

type Block = { path: string; oldStart: number; oldEnd: number; newStart: number; newEnd: number };

/** The diff's change blocks (runs of added and removed lines), with both sides' line ranges. */
function changeBlocks(diff: string): Block[] {
  const blocks: Block[] = [];
  let path: string | undefined;
  let oldLine = 0;
  let newLine = 0;
  let oldLeft = 0;
  let newLeft = 0;
  let block: { removed: number[]; added: number[]; oldAt: number; newAt: number } | undefined;
  const close = () => {
    if (block && path && (block.removed.length || block.added.length)) {
      const oldStart = block.removed[0] ?? Math.max(1, block.oldAt - 1);
      const newStart = block.added[0] ?? Math.max(1, block.newAt - 1);
      blocks.push({
        path,
        oldStart,
        oldEnd: block.removed.at(-1) ?? oldStart,
        newStart,
        newEnd: block.added.at(-1) ?? newStart,
      });
    }
    block = undefined;
  };
  for (const line of diff.split("\n")) {
    if (oldLeft > 0 || newLeft > 0) {
      if (line.startsWith("+") || line.startsWith("-")) {
        block ??= { removed: [], added: [], oldAt: oldLine, newAt: newLine };
        if (line.startsWith("+")) {
          block.added.push(newLine++);
          newLeft--;
        } else {
          block.removed.push(oldLine++);
          oldLeft--;
        }
      } else if (line.startsWith(" ") || line === "") {
        close();
        oldLine++;
        newLine++;
        oldLeft--;
        newLeft--;
      } else if (!line.startsWith("\\")) {
        close();
        oldLeft = newLeft = 0;
      }
      if (oldLeft <= 0 && newLeft <= 0) close();
      continue;
    }
    const hunk = /^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@/.exec(line);
    if (hunk) {
      oldLine = Number(hunk[1]);
      oldLeft = hunk[2] === undefined ? 1 : Number(hunk[2]);
      newLine = Number(hunk[3]);
      newLeft = hunk[4] === undefined ? 1 : Number(hunk[4]);
    } else if (line.startsWith("diff --git ")) path = undefined;
    else if (line.startsWith("+++ ")) path = line === "+++ /dev/null" ? undefined : line.slice(4).replace(/^b\//, "");
    else if (line.startsWith("--- ") && path === undefined) {
      // A deleted file has no new side: its blocks are placed on the old path.
      const old = line === "--- /dev/null" ? undefined : line.slice(4).replace(/^a\//, "");
      if (old) path = old;
    }
  }
  close();
  return blocks;
}

/**
 * Notices on the lines a change touches, only for `files` (the files the engine changed).
 * `side`: `new` when the check run is on the commit holding the change (the bot's own
 * commit), `old` when it is on the commit the change applies to (a red build's head).
 */
export function changedLineAnnotations(
  diff: string,
  files: readonly string[],
  side: "new" | "old",
  message: string,
): CheckAnnotation[] {
  const allowed = new Set(files.filter(isAnnotatablePath));
  return changeBlocks(diff)
    .filter((b) => allowed.has(b.path))
    .map((b) => ({
      path: b.path,
      start_line: side === "new" ? b.newStart : b.oldStart,
      end_line: side === "new" ? b.newEnd : b.oldEnd,
      annotation_level: "notice" as const,
      title: side === "new" ? "Changed by autogen" : "autogen's fix changes these lines",
      message,
    }));
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** The test's file: the report's, else the id's first part (`tests/x.py::test_y`, `src/a.test.ts > suite > name`). */
function testFile(test: { id: string; file?: string | undefined }): string | undefined {
  return test.file ?? test.id.split("::")[0]?.split(" > ")[0]?.trim();
}

/** The failing tests of `reports` whose file exists in the worktree at `root`, with the line their failure text names there. */
export function failureSites(reports: readonly TestReport[], root: string): FailureSite[] {
  const sites = new Map<string, FailureSite>();
  for (const test of reports.flatMap((r) => failingTests(r))) {
    if (sites.size >= MAX_FAILURE_SITES) break;
    const path = testFile(test)?.replace(/^\.\//, "");
    if (!path || sites.has(test.id) || !isAnnotatablePath(path)) continue;
    try {
      if (!existsSync(safeRepoPath(root, path))) continue;
    } catch {
      continue;
    }
    const text = `${test.details ?? ""}\n${test.message ?? ""}`;
    const match = new RegExp(`(?:^|[\\s("'/])${escapeRegExp(path)}[:"', line]+(\\d{1,7})`, "m").exec(text);
    const line = Math.max(1, Number(match?.[1] ?? 1));
    sites.set(test.id, { id: test.id, path, line, message: (test.message ?? "").split("\n")[0]?.slice(0, 500) ?? "" });
  }
  return [...sites.values()];
}

/** Sites read back from a checkpoint: anything that is not a well-formed site is dropped. */
export function parseFailureSites(value: unknown): FailureSite[] {
  if (!Array.isArray(value)) return [];
  return value
    .filter(
      (s): s is FailureSite =>
        typeof s === "object" &&
        s !== null &&
        typeof s.id === "string" &&
        typeof s.path === "string" &&
        Number.isInteger(s.line) &&
        s.line >= 1 &&
        typeof s.message === "string",
    )
    .filter((s) => isAnnotatablePath(s.path))
    .slice(0, MAX_FAILURE_SITES);
}

/**
 * Failure annotations for the failures a job explains. With an attribution (a red build),
 * a test the pull request broke is a failure, one that fails at the merge base too or is
 * flaky a warning; without one (an issue), each failing test the fix addresses.
 */
export function failureAnnotations(
  sites: readonly FailureSite[],
  attribution: AttributionResult | undefined,
  fixed: boolean,
): CheckAnnotation[] {
  const out: CheckAnnotation[] = [];
  for (const site of sites) {
    const verdict = attribution?.tests.find((t) => t.id === site.id)?.verdict;
    const why = site.message ? `: ${site.message}` : "";
    if (attribution && !verdict) continue;
    if (verdict === "passing" || verdict === "fixed") continue;
    if (verdict === "pre-existing")
      out.push({
        path: site.path,
        start_line: site.line,
        end_line: site.line,
        annotation_level: "warning",
        title: `Fails at the merge base too: ${site.id}`,
        message: `Not caused by this pull request, so left alone${why}`,
      });
    else if (verdict === "flaky")
      out.push({
        path: site.path,
        start_line: site.line,
        end_line: site.line,
        annotation_level: "warning",
        title: `Flaky: ${site.id}`,
        message: `Passed and failed on identical reruns, so left alone${why}`,
      });
    else
      out.push({
        path: site.path,
        start_line: site.line,
        end_line: site.line,
        annotation_level: "failure",
        title: `${verdict === "caused-by-change" ? "Broken by this pull request" : "Failing"}: ${site.id}`,
        message: `${fixed ? "autogen's change makes it pass again" : "autogen found no change that makes it pass"}${why}`,
      });
  }
  return out;
}
