// What the red build's repair comes to: the plan (plan-only), the stop without a fix, the
// patch in the status comment for a fork, or a commit on autogen/fix-ci-<n>-<sha> and a PR
// into the pull request's head branch.
import { isUnreviewed } from "../engine/review/review-fix.ts";
import type { Outcome } from "../engine/task.ts";
import { suggestedPatch } from "../report/ci-explanation.ts";
import { planSummary } from "../report/plan-summary.ts";
import { renderReport } from "../report/render-report.ts";
import { repairBranch } from "../triggers/bot-branch.ts";
import { coAuthor, commitAndPush, gitTarget } from "./publish-change.ts";
import type { Attributed, Checkouts } from "./red-build-attribution.ts";
import type { JobStop, RedBuild } from "./red-build.ts";

export async function publishRepair(
  b: RedBuild,
  outcome: Outcome,
  { config, choice, mergeBase }: Checkouts,
  { attribution, caused }: Attributed,
  ensureCurrent: () => Promise<void>,
): Promise<JobStop> {
  const { job, deps, status, pull, headSha, forge } = b;
  const { owner, repo, number } = job;
  if (job.checkpoint.planOnly === true) {
    status.set(
      "Plan",
      outcome.plan.verified ? "done" : "failed",
      `${outcome.plan.verified ? "verified" : "not verified"} on ${outcome.plan.verification?.length ?? 0} test(s)`,
    );
    return { message: planSummary(outcome), state: "done" };
  }
  status.set(
    "Attempts",
    outcome.status === "fixed" ? "done" : "failed",
    `${outcome.attempts.length} attempt(s), verified in ${choice.why}`,
  );
  if (outcome.status !== "fixed") {
    status.set("Pull request", "skipped", "no fix found");
    return {
      message: `Stopped without a fix (\`${outcome.stopReason}\`): ${outcome.message}.\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: pull.title })}\n</details>`,
      state: outcome.stopReason === "error" ? "failed" : "done",
      error: outcome.message,
    };
  }
  const after = outcome.evidence.regressionAfter;
  status.set("Regression gate", "done", after ? `${after.passed} passed, ${after.failed} failed` : undefined);
  await ensureCurrent();

  if (pull.fork) {
    status.set("Pull request", "skipped", "fork: patch in this comment");
    return {
      message: `${suggestedPatch(outcome.diff, { ref: pull.headRef, sha: headSha })}\n\n<details><summary>Report</summary>\n\n${renderReport(outcome, { title: pull.title })}\n</details>`,
      state: "done",
    };
  }
  const branch = repairBranch(number, headSha);
  if (!job.checkpoint.pushed) {
    const message = [
      `Fix the tests #${number} broke: ${caused.join(", ")}`.slice(0, 72),
      "",
      `${outcome.message}.`,
      "",
      coAuthor(job),
    ].join("\n");
    const target = await gitTarget(forge, job, deps.botIdentity);
    const sha = await commitAndPush(b.head, b.mirror, target, branch, message, outcome.changedFiles);
    await deps.store.checkpoint(job.id, { pushed: sha });
  }
  status.set("Pull request", "running");
  const title = `autogen: fix CI of #${number} (${pull.title})`.slice(0, 250);
  const leftAlone = attribution.tests
    .filter((t) => t.verdict === "pre-existing" || t.verdict === "flaky")
    .map((t) => `- \`${t.id}\`: ${t.verdict} (base ${t.base.join(", ")}; head ${t.candidate.join(", ")})`);
  const body = [
    `Repairs the red build of #${number} at \`${headSha.slice(0, 7)}\`: ${caused.length} test(s) the change broke pass again (attribution at the merge base \`${mergeBase.slice(0, 7)}\`). Merge this into \`${pull.headRef}\`.`,
    leftAlone.length ? `\nNot repaired, because the pull request did not cause them:\n${leftAlone.join("\n")}` : "",
    `\n${renderReport(outcome, { title, branch })}`,
  ].join("\n");
  let pr = await forge.findOpenPull(owner, repo, branch);
  if (pr) await forge.updatePull(owner, repo, pr.number, { title, body });
  else
    pr = await forge.createPull(owner, repo, {
      title,
      head: branch,
      base: pull.headRef,
      body,
      draft: config.pullRequest.draft === "always" || isUnreviewed(outcome),
    });
  await deps.store.checkpoint(job.id, { pull: pr.number });
  status.set("Pull request", "done", `#${pr.number}`);
  return { message: `Opened ${pr.url} into \`${pull.headRef}\`: ${outcome.message}.`, state: "done" };
}
