// What a job found and changed, as annotations on the workflow run: each test that
// failed before the change (an error on its file) and each hunk the change wrote (a
// notice on its lines). Texts are the repository's and the tests' own (hostile): the
// workflow-command writer escapes them.
import type { Outcome } from "../engine/task.ts";
import { parseDiff } from "../workspace/parse-diff.ts";
import type { Annotation } from "./workflow-commands.ts";

/** Enough to see what failed without flooding the run's page (GitHub shows 10 per step anyway). */
const MAX_FAILURES = 10;
const MAX_CHANGES = 20;

/** The file of a test id: pytest's `path::name`, or `path > suite > name`; undefined when it names no file. */
function testFile(id: string): string | undefined {
  const file = id.split("::")[0]?.split(" > ")[0]?.trim();
  return file && /\.[A-Za-z0-9]+$/.test(file) && !file.startsWith("/") && !file.split("/").includes("..")
    ? file
    : undefined;
}

/** The lines a unified diff adds, as ranges of consecutive lines per file (the new side; context lines left out). */
export function changedRanges(diff: string): Array<{ file: string; line: number; endLine: number }> {
  const ranges: Array<{ file: string; line: number; endLine: number }> = [];
  for (const { newPath, added } of parseDiff(diff)) {
    if (!newPath) continue;
    let open: { file: string; line: number; endLine: number } | undefined;
    for (const { line } of added) {
      if (open && open.endLine === line - 1) open.endLine = line;
      else ranges.push((open = { file: newPath, line, endLine: line }));
    }
  }
  return ranges;
}

export function jobAnnotations(outcome: Outcome): Annotation[] {
  const before = outcome.evidence.before?.tests ?? [];
  const failures = before.filter((t) => t.status === "fail" || t.status === "error").slice(0, MAX_FAILURES);
  const annotations: Annotation[] = failures.map((t) => ({
    level: "error",
    title: `failing test: ${t.id}`,
    file: testFile(t.id),
    message: t.message ?? `${t.id} ${t.status === "error" ? "errored" : "failed"}`,
  }));
  if (outcome.status === "fixed") {
    for (const range of changedRanges(outcome.diff).slice(0, MAX_CHANGES)) {
      annotations.push({
        level: "notice",
        title: "changed by autogen-bot",
        file: range.file,
        line: range.line,
        endLine: range.endLine,
        message: outcome.message,
      });
    }
  }
  return annotations;
}
