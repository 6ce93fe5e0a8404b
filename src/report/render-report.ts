// The report of one run, as markdown: what the PR body holds and what `autogen-bot fix` writes.
// A reviewer reads the verdict, the plan, the diff and the proof first (fails before /
// passes after, the full suite's gate, the tampering check); every per-test row, the
// localisation and the attempts follow, collapsed.
import { diffStat } from "../workspace/unified-diff.ts";
import { maintainerCommand } from "./maintainer-command.ts";
import type { Attempt, Outcome, TestEvidence } from "../engine/task.ts";
import type { InstallSummary } from "../verify/install/run-install.ts";
import { behaviourLines } from "./behaviour-section.ts";
import { searchLines } from "./search-section.ts";
import { cut, failsThenPasses, gateLines, headline, reviewLine, stillRunning } from "./report-sections.ts";

const MAX_ATTEMPTS_SHOWN = 50;
const ISOLATION: Record<string, string> = {
  bwrap:
    "bubblewrap (host read-only, only the worktree writable, the bot's secrets hidden, loopback only, new PID namespace, unprivileged uid, no capabilities)",
  unshare:
    "unshare namespaces (host read-only, only the worktree writable, the bot's secrets hidden, loopback only, new PID namespace, no capabilities)",
  none: "NO SANDBOX (the operator set AUTOGEN_ISOLATION=none): the tests ran with the bot's own rights",
};
const UNSANDBOXED_WARNING =
  "> [!WARNING]\n> **The tests in this report ran without a sandbox** (`AUTOGEN_ISOLATION=none`, chosen by whoever runs this bot). The repository's code ran with the bot's own rights on its host.";
const MAX_DIFF_CHARS = 20_000;
/** A failure message in the proof; a table cell in the details. Longer text is cut with the cut marked. */
const MESSAGE_CHARS = 1_000;
const CELL_CHARS = 400;

export function renderReport(
  outcome: Outcome,
  context: { title: string; branch?: string | undefined; commit?: string | undefined },
): string {
  const out: string[] = [`## ${context.title}`, ""];
  if (
    [
      outcome.evidence.before,
      outcome.evidence.after,
      outcome.evidence.regressionBefore,
      outcome.evidence.regressionAfter,
    ].some((e) => e?.isolation === "none")
  )
    out.push(UNSANDBOXED_WARNING, "");
  out.push(...headline(outcome));
  if (context.branch)
    out.push("", `Branch \`${context.branch}\`${context.commit ? ` at \`${context.commit.slice(0, 12)}\`` : ""}.`);

  out.push("", "### Plan", "");
  if (outcome.plan.steps) {
    out.push(
      outcome.plan.verified
        ? `Plan (verified on the visible tests in ${outcome.plan.planIterations ?? 1} round(s)):`
        : "Plan (not verified):",
      "",
    );
    outcome.plan.steps.forEach((step, i) => out.push(`${i + 1}. ${step}`));
  }
  const fix = outcome.plan.fix;
  if (fix)
    out.push(
      `${outcome.plan.steps ? "\n" : ""}Mechanical edit: ${fix.description} at \`${fix.file}:${fix.line}\` (repair template \`${fix.family}\`, at the line the failing tests point to most).`,
    );
  if (outcome.review && outcome.review.verdict !== "not-reviewed") out.push("", reviewLine(outcome.review));
  if (outcome.plan.recalled?.length) out.push("", recalledLine(outcome.plan.recalled));
  if (!outcome.plan.steps && !fix)
    out.push(
      outcome.plan.localisation.length > 0
        ? "No plan: the search found no edit (the suspicious lines are in the details below)."
        : "No plan was made.",
    );
  if (outcome.evidence.reproduction) {
    const r = outcome.evidence.reproduction;
    const ids = r.testIds ?? [r.testId];
    const tries = (r.attempts ?? 1) > 1 ? ` (accepted on attempt ${r.attempts})` : "";
    out.push(
      "",
      `Reproduction test ${ids.map((id) => `\`${id}\``).join(", ")} (**new test file** \`${r.path}\`, written by autogen-bot from the issue${tries}) failed on the unchanged code: ${inline(cut(r.failure, MESSAGE_CHARS))}`,
    );
    if (outcome.status === "fixed")
      out.push("", `The new test file \`${r.path}\` is part of this change: it passes with the fix.`);
  }

  out.push(...searchLines(outcome));

  if (outcome.diff) {
    const stat = diffStat(outcome.diff);
    const diff =
      outcome.diff.length > MAX_DIFF_CHARS
        ? `${outcome.diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut here: ${outcome.diff.length - MAX_DIFF_CHARS} more characters on the branch)`
        : outcome.diff;
    out.push(
      "",
      "### Diff",
      "",
      `${stat.files} file(s), +${stat.added} −${stat.removed}`,
      "",
      "```diff",
      diff.trimEnd(),
      "```",
    );
  }

  out.push("", "### Proof", "");
  if (outcome.dependencies) out.push(dependencyLine(outcome.dependencies), "");
  const { before, after, regressionBefore, regressionAfter } = outcome.evidence;
  if (before) {
    for (const e of [before, after])
      if (e?.limit)
        out.push(
          `A sandbox limit was reached in the ${e === before ? "run before the change" : "run after it"}: ${e.limit}.`,
          "",
        );
    out.push(...failsThenPasses(before, after, new Set(outcome.evidence.reproduction?.testIds ?? [])));
  }
  if (regressionBefore) out.push("", ...gateLines(regressionBefore, regressionAfter));
  const ranBefore = regressionBefore ?? before;
  const ranAfter = regressionBefore ? regressionAfter : after;
  const switchedOff = outcome.attempts.filter((a) => a.result === "tampering");
  out.push("", "#### Diff policy and test-tampering check", "");
  if (ranBefore && ranAfter) out.push(`- ${stillRunning(ranBefore, ranAfter)}`);
  // Refusals by outcome come first: they hold whatever the diff looks like.
  for (const a of switchedOff.slice(0, MAX_ATTEMPTS_SHOWN))
    out.push(`- ❌ attempt ${a.index} refused: ${(a.reason ?? "tampering").replaceAll("`", "'")}`);
  if (outcome.policy) {
    if (outcome.policy.ok)
      out.push(
        "- No protected path touched, within the diff budget, and no test weakened (no deleted or renamed test, no added skip/only/xfail, no removed or changed assertion, no rewritten snapshot, no test file patching what it imports or ending the process, no pytest plugin code).",
      );
    for (const v of outcome.policy.violations) out.push(`- ❌ ${v.rule}: ${v.detail}`);
    for (const t of outcome.policy.tampering)
      out.push(`- ⚠️ ${t.kind} in \`${t.file}${t.line ? `:${t.line}` : ""}\`: ${t.detail.replaceAll("`", "'")}`);
  } else if (!(ranBefore && ranAfter) && switchedOff.length === 0) {
    out.push("- Not checked: no candidate reached the final diff.");
  }

  out.push(...behaviourLines(outcome.behaviour));

  out.push("", "### Details");
  if (before) {
    const where =
      before.isolation === "actions"
        ? "run by the repository's verification workflow on a GitHub Actions runner"
        : `run in the sandbox with ${ISOLATION[before.isolation] ?? before.isolation}`;
    out.push("", `Command: \`${maintainerCommand(before.command).join(" ")}\`, ${where}.`);
    out.push(
      "",
      `<details><summary>Every visible test, before and after (${before.tests.length})</summary>`,
      "",
      ...evidenceTable(before, after, new Set(outcome.evidence.reproduction?.testIds ?? [])),
      "",
      "</details>",
    );
  }
  if (outcome.plan.verification?.length) {
    out.push(
      "",
      "<details><summary>Plan verification (the plan walked through each visible test)</summary>",
      "",
      "| test | derived by the plan | expected | agrees |",
      "| --- | --- | --- | --- |",
    );
    for (const v of outcome.plan.verification)
      out.push(`| ${cell(v.test)} | ${cell(v.derived)} | ${cell(v.expected)} | ${v.matches ? "✅" : "❌"} |`);
    out.push("", "</details>");
  }
  if (outcome.plan.localisation.length > 0) {
    out.push("", "<details><summary>Fault localisation (the lines the failing tests run most)</summary>", "");
    out.push("Ochiai over per-test line coverage; ef/ep = failing/passing tests that execute the line.", "");
    out.push("| rank | location | suspiciousness | ef | ep |", "| --- | --- | --- | --- | --- |");
    // Equal scores share a rank (1, 1, 1, 4): the order among them says nothing.
    const ranks = outcome.plan.localisation.map(
      (l) => 1 + outcome.plan.localisation.filter((o) => o.score > l.score).length,
    );
    outcome.plan.localisation.forEach((l, i) =>
      out.push(
        `| ${ranks[i]} | \`${l.file}:${l.line}\` | ${l.score.toFixed(3)} | ${l.failedCovering} | ${l.passedCovering} |`,
      ),
    );
    out.push("", "</details>");
  }
  out.push(
    "",
    `<details><summary>Attempts: ${outcome.attempts.length} of ${outcome.cost.candidatesGenerated} candidate change(s) tested</summary>`,
    "",
  );
  out.push("| # | edit | location | result | passed | failed |", "| --- | --- | --- | --- | --- | --- |");
  for (const a of outcome.attempts.slice(0, MAX_ATTEMPTS_SHOWN)) {
    const where = a.file ? `\`${a.file}${a.line ? `:${a.line}` : ""}\`` : "";
    out.push(
      `| ${a.index} | ${a.family ? `${a.family}: ` : ""}${cell(a.description)}${a.analysis ? `<br>analysis: ${cell(a.analysis)}` : ""} | ${where} | ${RESULT_WORDS[a.result]}${a.limit ? `: ${cell(a.limit)}` : ""}${a.reason ? `: ${cell(reasonAfter(a.result, a.reason))}` : ""} | ${a.passed} | ${a.failed} |`,
    );
  }
  if (outcome.attempts.length > MAX_ATTEMPTS_SHOWN)
    out.push("", `(${outcome.attempts.length - MAX_ATTEMPTS_SHOWN} more attempts not shown)`);
  out.push("", "</details>");

  const c = outcome.cost;
  out.push(
    "",
    `Cost: ${c.llmCalls === 0 ? "no model calls" : `LLM calls ${c.llmCalls}, tokens ${c.promptTokens + c.completionTokens} (estimated $${c.dollars.toFixed(4)})`}${c.cachedCalls > 0 ? `; ${c.cachedCalls} more answered from a cache in front of the model (earlier answers sent again: not billed, not counted above)` : ""}, test runs ${c.testRuns} (${c.testSeconds.toFixed(1)} s), wall ${c.wallSeconds.toFixed(1)} s.`,
  );
  return `${out.join("\n")}\n`;
}

/** Earlier fixes whose plans the model was shown (reused from earlier runs, so a reviewer knows). */
export function recalledLine(recalled: ReadonlyArray<{ task: string; score: number }>): string {
  const named = recalled.map((r) => `"${cell(r.task.slice(0, 120))}" (similarity ${r.score.toFixed(2)})`).join("; ");
  return `Reused from earlier runs: the plan stage was shown the plans of ${recalled.length} earlier fix(es) in this repository (memory): ${named}.`;
}

/** What was installed, by which command, from where, and how long it took. */
export function dependencyLine(d: InstallSummary): string {
  const what = `${d.manager}, from \`${d.lockfile}\``;
  if (d.source === "checkout")
    return `Dependencies (${what}): your checkout's own, read-only to the tests (its lockfile matches the commit's).`;
  if (d.source === "cache")
    return `Dependencies (${what}): from cache (installed by an earlier job with \`${d.command}\` from the same lockfile), ready in ${d.seconds.toFixed(1)} s.`;
  const network = d.network ? "with network" : "without network";
  if (!d.ok)
    return `Dependencies (${what}): the install \`${d.command}\` failed after ${d.seconds.toFixed(1)} s (${network}); the tests ran without them.`;
  return `Dependencies (${what}): installed fresh with \`${d.command}\` in the sandbox (${network}) in ${d.seconds.toFixed(1)} s; ${d.notCached ? `not cached (${d.notCached})` : "cached for later jobs"}.`;
}

function evidenceTable(before: TestEvidence, after: TestEvidence | undefined, added: ReadonlySet<string>): string[] {
  const afterById = new Map((after?.tests ?? []).map((t) => [t.id, t.status]));
  const rows = ["| visible test | before | after |", "| --- | --- | --- |"];
  for (const t of before.tests)
    rows.push(
      `| \`${t.id}\`${added.has(t.id) ? " (new)" : ""} | ${mark(t.status)} | ${after ? mark(afterById.get(t.id)) : "–"} |`,
    );
  return [
    `Visible tests: before ${before.passed} passed, ${before.failed} failed${after ? `; after ${after.passed} passed, ${after.failed} failed` : ""}.`,
    "",
    ...rows,
  ];
}

function cell(text: string): string {
  return inline(cut(text, CELL_CHARS)).replaceAll("|", "\\|");
}

function inline(text: string): string {
  return text.replaceAll("\n", " ");
}

function mark(status: string | undefined): string {
  if (status === "pass") return "✅ pass";
  if (status === "fail" || status === "error") return `❌ ${status}`;
  if (status === "skip") return "skip";
  return "–";
}

/** An attempt's result in a reviewer's words, not the engine's. */
const RESULT_WORDS: Record<Attempt["result"], string> = {
  "still-failing": "the failing tests still fail",
  "visible-regressed": "breaks one of the task's tests that passed before",
  "regression-failed": "breaks a test that passed before the change",
  plausible: "passes the tests",
  "edit-failed": "the edit did not apply",
  "timed-out": "timed out",
  tampering: "tampering",
  refused: "refused by the model's review",
};

/** A reason as the result column gives it after the result: "tampering: …" beside "tampering" is said once. */
function reasonAfter(result: string, reason: string): string {
  return reason.startsWith(`${result}: `) ? reason.slice(result.length + 2) : reason;
}
