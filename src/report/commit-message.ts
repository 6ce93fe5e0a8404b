// A fix's commit message: what changed (the edit, or the plan's steps and the files), how
// it was checked, and the issue it fixes ("Fixes #N" when the issue has a number).
import { fixedWord } from "../engine/review/review-fix.ts";
import type { Outcome } from "../engine/task.ts";

const SUBJECT_CHARS = 72;

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
  const change = fix
    ? `${fix.description.replaceAll("`", "")} in ${fix.file}`
    : (outcome.plan.steps?.[0] ?? `Change ${files}`);
  const subject = oneLine(options.subject ?? change).slice(0, SUBJECT_CHARS);
  const body: string[] = [];
  if (options.issueLine) body.push(`Requested: ${oneLine(options.issueLine)}`, "");
  body.push(`What changed (${files || "no files"}):`);
  if (fix) body.push(`- ${fix.description.replaceAll("`", "")} at ${fix.file}:${fix.line}`);
  else for (const step of outcome.plan.steps ?? []) body.push(`- ${oneLine(step)}`);
  body.push("");
  const after = outcome.evidence.after;
  const verdict = outcome.status === "fixed" ? fixedWord(outcome) : "does not pass the tests";
  body.push(
    `Checked by autogen-bot: ${verdict}${after ? ` (visible tests after the change: ${after.passed} passed, ${after.failed} failed)` : ""}.`,
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
