// The model's review of a mechanical (template) candidate: shown the issue, the tests it
// makes pass and the diff, it accepts the edit or refuses it with a reason. A template
// edit passes the tests by construction, so passing them is no evidence it is right.
import { z } from "zod";
import { BudgetExceededError } from "../../llm/budget.ts";
import { LlmStageError, type LlmClient } from "../../llm/llm-client.ts";
import type { TestCaseResult } from "../../verify/test-report.ts";
import { numberedLine } from "../../workspace/numbered-line.ts";
import { failingTestsBlock } from "../lpw/failing-tests-block.ts";

export const reviewSchema = z.object({ accepted: z.boolean(), reason: z.string().min(1) });

/** What shipped, and who checked it: `not-reviewed`: no model was configured to look at a mechanical edit. */
export type FixReview = { verdict: "accepted" | "refused" | "not-reviewed"; reason: string };

export type ReviewCandidate = { description: string; diff: string; file: string; line: number; edited: string };

/** Reviews one candidate; the task's issue and failing tests are bound when it is made. */
export type FixReviewer = (candidate: ReviewCandidate) => Promise<FixReview>;

const UNREVIEWED = "passes the tests; not reviewed";

export const NOT_REVIEWED: FixReview = {
  verdict: "not-reviewed",
  reason: `${UNREVIEWED}: no model is configured to check a mechanical edit against the issue`,
};

const AROUND = 25;

export function modelReviewer(
  llm: LlmClient,
  input: { workspace: string; problem: string | undefined; failing: readonly TestCaseResult[] },
): FixReviewer {
  let tests: Promise<string> | undefined;
  return async (candidate) => {
    tests ??= failingTestsBlock(input.workspace, input.failing);
    const vars = {
      untrusted: {
        problem: input.problem ?? "Make the failing tests pass (no issue text was given).",
        tests: await tests,
        diff: candidate.diff,
        code: excerpt(candidate.file, candidate.edited, candidate.line),
      },
    };
    try {
      const { value } = await llm.call("review-fix", vars, reviewSchema);
      return { verdict: value.accepted ? "accepted" : "refused", reason: value.reason.trim() };
    } catch (error) {
      // The model was configured but gave no review (unreachable, answers that broke the
      // schema, its budget spent): the edit is what it would be without a model, a fix on
      // the tests' word, said so, and its PR a draft. Never "fixed", never a lost job.
      if (error instanceof BudgetExceededError)
        return {
          verdict: "not-reviewed",
          reason: `${UNREVIEWED}: the model's budget ran out before it could review the edit`,
        };
      if (error instanceof LlmStageError)
        return {
          verdict: "not-reviewed",
          reason: `${UNREVIEWED}: the model configured to review the edit gave no usable answer`,
        };
      throw error;
    }
  };
}

/** The edited file around the changed line, numbered as in the file. */
function excerpt(file: string, text: string, line: number): string {
  const lines = text.split("\n");
  const from = Math.max(1, line - AROUND);
  const to = Math.min(lines.length, line + AROUND);
  const body = lines.slice(from - 1, to).map((l, i) => numberedLine(from + i, l));
  return `--- ${file} (lines ${from}-${to} of ${lines.length})\n${body.join("\n")}`;
}

type Judged = {
  status: string;
  review?: FixReview | undefined;
  behaviour?: { kind: string; rows?: ReadonlyArray<{ flag: string }> } | undefined;
};

/** Outputs the fix changed on generated inputs where the issue asked for no change (the behaviour table's flags). */
export function unrequestedChanges(outcome: Judged): number {
  return outcome.behaviour?.rows?.filter((r) => r.flag === "unrequested").length ?? 0;
}

/**
 * A fix that needs a reviewer before it is merged: no one but the tests checked it (a
 * mechanical edit with no model's review), or it changes outputs the issue did not ask to
 * change. Reported so, its check run neutral, its PR a draft.
 */
export function isUnreviewed(outcome: Judged): boolean {
  return outcome.status === "fixed" && (outcome.review?.verdict === "not-reviewed" || unrequestedChanges(outcome) > 0);
}

/** The headline word for a fix: "fixed", "passes the tests; not reviewed", and the unrequested behaviour changes when there are any. */
export function fixedWord(outcome: Judged): string {
  const word = outcome.review?.verdict === "not-reviewed" ? UNREVIEWED : "fixed";
  const changed = unrequestedChanges(outcome);
  return changed > 0 ? `${word}; ${String(changed)} output change(s) the issue did not ask for` : word;
}
