// What the CLI makes of the pipeline's result: the terminal's words for a stop before the
// engine, and a fix published locally (a new branch `autogen/<slug>` with a commit message
// that links the issue).
import type { Outcome, VisibleTests } from "../../engine/task.ts";
import type { PipelineStop } from "../../pipeline/pipeline-ports.ts";
import { fixCommitMessage } from "../../report/commit-message.ts";
import type { TestReport } from "../../verify/test-report.ts";
import { commitOnNewBranch } from "../../workspace/commit-files.ts";
import { freeBranchName } from "../../workspace/git.ts";
import { EXIT } from "../command.ts";

/** A stop before the engine, as the terminal says it, and its exit code. */
export function stopMessage(
  stop: PipelineStop | undefined,
  baseline: TestReport | undefined,
): { message: string; code: number } | undefined {
  if (!stop) return undefined;
  if (stop.stage === "runner") return { message: stop.error.message, code: EXIT.usage };
  if (stop.stage === "setup") return { message: stop.message, code: EXIT.failed };
  if (baseline?.run.spawnError) {
    return {
      message: `the test command could not start: ${baseline.run.spawnError}${stop.hint ? `; ${stop.hint}` : ""}`,
      code: EXIT.usage,
    };
  }
  if (stop.kind === "broken") {
    const advice = stop.hint
      ? `Likely cause: ${stop.hint}.`
      : "Fix the test command (test.command in .github/autogen.yml, or --test-cmd) and try again.";
    return { message: `${stop.message}. ${advice}`, code: EXIT.failed };
  }
  return {
    message: `nothing to fix: ${stop.message}. Name the tests that show the bug with --test.`,
    code: EXIT.failed,
  };
}

/** The fix committed on a fresh branch of `repo` (the user's branch is untouched). */
export async function commitFixLocally(
  repo: string,
  worktree: string,
  outcome: Outcome,
  issueText: string | undefined,
  slug: string,
): Promise<{ branch: string; commit: string }> {
  const branch = await freeBranchName(repo, `autogen/${slug}`);
  const commit = await commitOnNewBranch(worktree, branch, outcome.changedFiles, commitMessage(outcome, issueText));
  return { branch, commit };
}

/** A branch and report name from the issue's first line, or from the first failing test. */
export function slugFor(issueText: string | undefined, visible: VisibleTests): string {
  const source = issueText
    ? firstLine(issueText)
    : visible.kind === "tests"
      ? `fix-${visible.ids[0]?.split(/::| > /).at(-1) ?? "tests"}`
      : "fix-tests";
  const words = source
    .toLowerCase()
    .split(/[^a-z0-9]+/)
    .filter(Boolean);
  let slug = "";
  for (const word of words) {
    if (slug && slug.length + 1 + word.length > 40) break;
    slug = slug ? `${slug}-${word}` : word.slice(0, 40);
  }
  return slug || "fix";
}

export function firstLine(text: string): string {
  return (text.trim().split("\n")[0] ?? "").slice(0, 100);
}

function commitMessage(outcome: Outcome, issueText: string | undefined): string {
  // An issue named by number ("#12", "Fixes #12" in the text) is linked; a bare description is quoted.
  const issueNumber = /(?:^|\s)#(\d+)\b/.exec(issueText ?? "")?.[1];
  return fixCommitMessage(outcome, {
    issueLine: issueText,
    issueNumber: issueNumber ? Number(issueNumber) : undefined,
  });
}
