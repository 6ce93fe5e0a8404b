// What the bot says about a red build it will not change code for: an infrastructure
// failure (the CI machinery, or a test command that is broken), or failing tests that were not caused by the pull request (red on its base
// too, or flaky on identical reruns), with the evidence for each verdict.
import type { RunEvidence } from "../ci/run-evidence.ts";
import type { InfraFailure } from "../ci/infra-failure.ts";
import type { AttributionResult } from "../verify/attribution.ts";

const fence = (text: string) => {
  const ticks = "`".repeat(Math.max(3, ...[...text.matchAll(/`+/g)].map((m) => m[0].length + 1)));
  return `${ticks}\n${text}\n${ticks}`;
};

export function evidenceDetails(evidence: RunEvidence[]): string {
  return evidence
    .map((e) => {
      const jobs = e.jobs.map(
        (j) =>
          `- job [${j.name}](${j.url})${j.failedSteps.length ? `, failed step: ${j.failedSteps.join(", ")}` : ""}${
            j.annotations.length
              ? `; ${j.annotations.length} annotation(s): ${j.annotations
                  .slice(0, 3)
                  .map((a) => `${a.path}:${a.line} ${a.message.split("\n")[0]}`)
                  .join("; ")}`
              : ""
          }`,
      );
      const source =
        e.testsFrom === "artifact"
          ? `test results from the uploaded report (${e.artifactFiles.join(", ")})`
          : e.testsFrom === "log"
            ? "test results read from the job log"
            : "no per-test results in the run";
      return [
        `**[${e.run.name || e.run.path}](${e.run.htmlUrl})** (${e.run.conclusion ?? e.run.status}; ${source})`,
        ...jobs,
        "",
        fence(e.digest.trim()),
      ].join("\n");
    })
    .join("\n\n");
}

export function explainInfra(infra: InfraFailure, evidence: RunEvidence[]): string {
  return [
    `**Not a code problem: ${infra.explanation}.** No test failed; the log shows:`,
    "",
    fence(infra.line),
    "",
    "Re-running the failed jobs should be enough. autogen-bot made no change.",
    "",
    `<details><summary>Evidence</summary>\n\n${evidenceDetails(evidence)}\n</details>`,
  ].join("\n");
}

/** A red build whose test run the bot judges broken (`brokenRunReason`): the tests never ran as tests, so there is nothing to repair in the code. */
export function explainBrokenTests(reason: string, where: string, evidence: RunEvidence[]): string {
  return [
    `**Not a code problem: the test command is broken** (${where}): ${reason}.`,
    "",
    "The failures are test files that did not load or collect (a package the tests need that is not installed, a syntax error in a test file, a command that runs no test), not tests that failed, so they say nothing about the code and autogen-bot did not plan a change. Fix the test setup (the CI workflow, or `test.command` in `.github/autogen.yml`) and run CI again.",
    "",
    `<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`,
  ].join("\n");
}

const VERDICT = {
  "pre-existing": "fails on the base too (pre-existing)",
  flaky: "flaky (different results on identical reruns)",
  "caused-by-change": "caused by this pull request",
  passing: "passes on the head here",
  fixed: "passes on the head here",
} as const;

export function explainAttribution(
  attribution: AttributionResult,
  where: { base: string; head: string; verifier: string },
  evidence: RunEvidence[],
): string {
  const counts = attribution.counts;
  const kinds = [
    counts["pre-existing"] ? `${counts["pre-existing"]} pre-existing` : "",
    counts.flaky ? `${counts.flaky} flaky` : "",
    counts.passing + counts.fixed ? `${counts.passing + counts.fixed} not reproduced` : "",
  ]
    .filter(Boolean)
    .join(", ");
  const rows = attribution.tests.map(
    (t) =>
      `| \`${t.id.replaceAll("|", "\\|")}\` | ${VERDICT[t.verdict]} | ${t.base.join(", ") || "not run"} | ${t.candidate.join(", ") || "not run"} |`,
  );
  return [
    `**The failing tests were not caused by this pull request** (${kinds}), so autogen-bot made no change.`,
    "",
    `Each failing test was run at the merge base \`${where.base.slice(0, 7)}\` and at the head \`${where.head.slice(0, 7)}\`, and the failures again on identical reruns (${where.verifier}; ${attribution.testRuns} test runs):`,
    "",
    "| test | verdict | base runs | head runs |",
    "| --- | --- | --- | --- |",
    ...rows,
    "",
    `<details><summary>Evidence from CI</summary>\n\n${evidenceDetails(evidence)}\n</details>`,
  ].join("\n");
}

export function suggestedPatch(diff: string, head: { ref: string; sha: string }): string {
  return [
    `This pull request comes from a fork, so autogen-bot does not push to it. The fix below passes the failing tests and the regression gate on \`${head.sha.slice(0, 7)}\`; to apply it on \`${head.ref}\`:`,
    "",
    fence(`git apply <<'AUTOGEN_PATCH'\n${diff.replace(/\n?$/, "\n")}AUTOGEN_PATCH`).replace(/^(`+)/, "$1sh"),
    "",
    "<details><summary>The change</summary>\n",
    fence(diff.trim()).replace(/^(`+)/, "$1diff"),
    "\n</details>",
  ].join("\n");
}
