// A fix's commit message: what changed (the edit, or the plan's steps and the files), how
// it was checked, and the issue it fixes ("Fixes #N" when the issue has a number). A model's
// edit with neither plan nor template description is said by its changed lines; with no
// issue, the failing tests it makes pass say what it is for.
import { fixedWord } from "../engine/review/review-fix.ts";
import type { Outcome } from "../engine/task.ts";
import { parseDiff } from "../workspace/parse-diff.ts";

const SUBJECT_CHARS = 72;
const LINE_CHARS = 100;
const LINES_PER_FILE = 3;
const MAX_TESTS = 5;

/** `subject`: the caller's, when it has one (an issue title); else the change itself. */
export function fixCommitMessage(
  outcome: Outcome,
  options: {
    subject?: string | undefined;
    issueNumber?: number | undefined;
    issueLine?: string | undefined;
    trailers?: string[] | undefined;
  },
): string {
  const fix = outcome.plan.fix;
  const files = outcome.changedFiles.join(", ");
  const lines = fix || outcome.plan.steps ? undefined : changedLines(outcome.diff);
  const single = lines?.length === 1 && lines[0]?.change;
  const change = fix
    ? `${fix.description.replaceAll("`", "")} in ${fix.file}`
    : (outcome.plan.steps?.[0] ?? (single ? `${single} in ${lines[0]?.file}` : `Change ${files}`));
  const subject = oneLine(options.subject ?? change).slice(0, SUBJECT_CHARS);
  const body: string[] = [];
  if (options.issueLine) body.push(`Requested: ${oneLine(options.issueLine)}`, "");
  body.push(`What changed (${files || "no files"}):`);
  if (fix) body.push(`- ${fix.description.replaceAll("`", "")} at ${fix.file}:${fix.line}`);
  else if (outcome.plan.steps) for (const step of outcome.plan.steps) body.push(`- ${oneLine(step)}`);
  else body.push(...shownLines(lines ?? []));
  body.push("");
  const after = outcome.evidence.after;
  const verdict = outcome.status === "fixed" ? fixedWord(outcome) : "does not pass the tests";
  body.push(
    `Checked by autogen-bot: ${verdict}${after ? ` (visible tests after the change: ${after.passed} passed, ${after.failed} failed)` : ""}.`,
  );
  const madePass = passedAfter(outcome);
  if (options.issueLine === undefined && options.issueNumber === undefined && madePass.length > 0)
    body.push(
      `Makes pass: ${madePass.slice(0, MAX_TESTS).join(", ")}${madePass.length > MAX_TESTS ? `, and ${madePass.length - MAX_TESTS} more` : ""}`,
    );
  if (outcome.review?.verdict === "accepted")
    body.push(`The model reviewed the edit against the issue: ${oneLine(outcome.review.reason)}`);
  if (options.issueNumber !== undefined && outcome.status === "fixed") body.push("", `Fixes #${options.issueNumber}`);
  else if (options.issueNumber !== undefined) body.push("", `Refs #${options.issueNumber}`);
  if (options.trailers?.length) body.push("", ...options.trailers);
  return `${subject}\n\n${body.join("\n")}\n`;
}

function oneLine(text: string): string {
  return (text.trim().split("\n")[0] ?? "").trim();
}

type ChangedLine = { file: string; line: number; change: string };

/** Each changed line of the diff: a removed line and the added line in its place ("a → b"), or one alone ("+ a", "- b"). */
function changedLines(diff: string): ChangedLine[] {
  const out: ChangedLine[] = [];
  for (const file of parseDiff(diff)) {
    const path = file.newPath ?? file.oldPath ?? "";
    const pairs = Math.max(file.added.length, file.removed.length);
    for (let i = 0; i < pairs; i++) {
      const removed = file.removed[i];
      const added = file.added[i];
      const text = (s: string) => s.trim().replaceAll("`", "'").slice(0, LINE_CHARS);
      const change =
        removed && added
          ? `${text(removed.text)} → ${text(added.text)}`
          : added
            ? `+ ${text(added.text)}`
            : `- ${text(removed?.text ?? "")}`;
      out.push({ file: path, line: added?.line ?? removed?.line ?? 0, change });
    }
  }
  return out;
}

/** The first lines of each file, and how many more. */
function shownLines(lines: readonly ChangedLine[]): string[] {
  const out: string[] = [];
  for (const file of new Set(lines.map((l) => l.file))) {
    const own = lines.filter((l) => l.file === file);
    for (const l of own.slice(0, LINES_PER_FILE)) out.push(`- ${l.file}:${String(l.line)}: ${l.change}`);
    if (own.length > LINES_PER_FILE) out.push(`- ${file}: ${String(own.length - LINES_PER_FILE)} more changed line(s)`);
  }
  return out;
}

/** The tests that failed on the unchanged code and pass after the change. */
function passedAfter(outcome: Outcome): string[] {
  const after = new Map((outcome.evidence.after?.tests ?? []).map((t) => [t.id, t.status]));
  return (outcome.evidence.before?.tests ?? [])
    .filter((t) => (t.status === "fail" || t.status === "error") && after.get(t.id) === "pass")
    .map((t) => t.id);
}
