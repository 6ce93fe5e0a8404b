// What the `autogen` check run says when a job ends: its conclusion (success: fixed;
// neutral: a fix that needs a reviewer (not reviewed, or an output change the issue did
// not ask for), a plan only, nothing to do, or failures the pull request did not cause;
// failure: no fix found, or an error; cancelled), a one-line title, and a summary made
// of the job's status checklist, its final word and its report.
import { fixedWord, isUnreviewed } from "../engine/review/review-fix.ts";
import type { Outcome } from "../engine/task.ts";
import type { Job } from "../jobs/store.ts";
import type { CheckConclusion } from "../forge/check-run-forge.ts";
import { renderReport } from "./render-report.ts";
import type { StatusStep } from "./status-comment.ts";

export type StatusRecord = { steps: StatusStep[]; summary?: string | undefined };
export type CheckVerdict = { conclusion: CheckConclusion; title: string; summary: string; forkPatch: boolean };

const ICON = { pending: "⬜", running: "⏳", done: "✅", failed: "❌", skipped: "➖" } as const;

export function parseStatusRecord(value: unknown): StatusRecord | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as { steps?: unknown; summary?: unknown };
  if (!Array.isArray(v.steps)) return undefined;
  const steps = v.steps.filter(
    (s): s is StatusStep =>
      typeof s === "object" &&
      s !== null &&
      typeof (s as StatusStep).name === "string" &&
      (s as StatusStep).state in ICON,
  );
  return { steps, summary: typeof v.summary === "string" ? v.summary : undefined };
}

/** The verdict on a job that ended (`done`, `failed` or `cancelled`). */
export function checkVerdict(job: Job): CheckVerdict {
  const outcome = job.checkpoint.outcome as Outcome | undefined;
  const status = parseStatusRecord(job.checkpoint.statusReport);
  const planOnly = job.kind === "plan" || job.checkpoint.planOnly === true;
  // A fork's fix is offered as a patch: the job found it but pushed nothing and opened no PR.
  const forkPatch =
    job.kind === "ci" &&
    job.state === "done" &&
    !planOnly &&
    outcome?.status === "fixed" &&
    job.checkpoint.pushed === undefined &&
    job.checkpoint.pull === undefined;
  let conclusion: CheckConclusion;
  let title: string;
  if (job.state === "cancelled") [conclusion, title] = ["cancelled", `Cancelled: ${job.error ?? "stopped"}`];
  else if (job.state === "failed")
    [conclusion, title] = ["failure", `Stopped by an error: ${(job.error ?? "unknown").split("\n")[0] ?? ""}`];
  else if (planOnly)
    [conclusion, title] = [
      "neutral",
      outcome?.plan.verified ? "Plan written and verified; nothing changed" : "Plan written; nothing changed",
    ];
  else if (outcome?.status === "fixed") {
    // A fix no one but the tests checked is not a green check: neutral, and the title says why.
    const word = fixedWord(outcome);
    const said = word.charAt(0).toUpperCase() + word.slice(1);
    [conclusion, title] = [
      isUnreviewed(outcome) ? "neutral" : "success",
      forkPatch
        ? `${isUnreviewed(outcome) ? `${said}: Apply fix opens a draft pull request with it` : "Fix found: Apply fix opens a pull request with it"}`
        : `${said}: ${outcome.message}`,
    ];
  } else if (outcome) [conclusion, title] = ["failure", `No fix found (${outcome.stopReason}): ${outcome.message}`];
  // Done without an engine run: nothing to do, failures the pull request did not cause, infrastructure.
  else [conclusion, title] = ["neutral", firstLine(status?.summary) ?? "Nothing to change"];

  const parts: string[] = [];
  if (status?.steps.length)
    parts.push(status.steps.map((s) => `- ${ICON[s.state]} ${s.name}${s.detail ? `: ${s.detail}` : ""}`).join("\n"));
  if (status?.summary) parts.push(status.summary);
  // The report, unless the final word already carries it.
  if (outcome && !(status?.summary ?? "").includes("<summary>Report</summary>"))
    parts.push(
      `<details><summary>Report</summary>\n\n${renderReport(outcome, { title: job.snapshot.title })}\n</details>`,
    );
  if (parts.length === 0) parts.push(title);
  return { conclusion, title: title.slice(0, 200), summary: parts.join("\n\n"), forkPatch };
}

function firstLine(text: string | undefined): string | undefined {
  const line = text
    ?.split("\n")
    .find((l) => l.trim())
    ?.replace(/[*`>#]/g, "")
    .trim();
  return line ? line.slice(0, 200) : undefined;
}
