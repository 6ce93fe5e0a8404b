// The parts of a report a reviewer reads first: the verdict in words (no internal strategy
// names), the model's review of a mechanical edit, the tests that failed before and pass
// after, the full suite's gate in numbers that add up, and the tampering check by outcome
// (the behaviour table is behaviour-section.ts).
import { unrequestedChanges } from "../engine/review/review-fix.ts";
import type { FixReview } from "../engine/review/review-fix.ts";
import type { Outcome, StopReason, TestEvidence } from "../engine/task.ts";

const FAILURE_CHARS = 1_000;

const STOPPED: Record<StopReason, string> = {
  solved: "solved",
  budget: "the budget ran out",
  exhausted: "no candidate passed the tests",
  iterations: "no passing change within the refinement rounds",
  stuck: "the same failure kept coming back",
  "nothing-to-fix": "nothing fails",
  unsupported: "not supported here",
  error: "an error stopped the run",
  cancelled: "stopped on request",
  policy: "the change broke a rule of the diff policy",
  planned: "a plan only, no code changed",
  "not-reproduced": "the issue could not be reproduced by a failing test",
  "broken-tests": "the test command is broken",
  "no-change": "the model judged that no code change is needed",
  refused: "the model refused every mechanical edit that passed the tests",
  "contradicts-issue": "the change passes the tests but not the issue's own examples",
};

/** Text cut at `max` characters, the cut marked with how much was left out. */
export function cut(text: string, max: number): string {
  if (text.length <= max) return text;
  return `${text.slice(0, max)}… (cut: ${text.length - max} more characters)`;
}

function howFound(outcome: Outcome): string {
  if (outcome.plan.fix) {
    if (outcome.review?.verdict === "accepted")
      return "a mechanical edit found by search, then reviewed against the issue by the model and accepted";
    return "a mechanical edit found by search (fault localisation and repair templates)";
  }
  if (outcome.plan.steps) return "planned by the model, the plan checked on the tests, then written by the model";
  return "written by the model";
}

export function headline(outcome: Outcome): string[] {
  if (outcome.status !== "fixed") {
    const lines = [`**Not fixed** (${STOPPED[outcome.stopReason]}, \`${outcome.stopReason}\`): ${outcome.message}.`];
    if (outcome.review?.verdict === "refused") lines.push("", reviewLine(outcome.review));
    return lines;
  }
  const lines =
    outcome.review?.verdict === "not-reviewed"
      ? [
          `**Passes the tests; not reviewed**: ${outcome.message}.`,
          "",
          "> [!CAUTION]",
          "> This is a mechanical edit found by trying small changes until the tests passed, and no model was configured to check it against the issue. Such an edit can pass the tests for the wrong reason: read the diff before merging. A pull request of it is opened as a draft.",
        ]
      : [`**Fixed**, ${howFound(outcome)}: ${outcome.message}.`];
  const changed = unrequestedChanges(outcome);
  if (changed > 0)
    lines.push(
      "",
      "> [!WARNING]",
      `> The change gives a different output on ${String(changed)} input(s) where the issue asked for no change (⚠️ in the behaviour table below): check that each is wanted before merging. A pull request of it is opened as a draft.`,
    );
  return lines;
}

export function reviewLine(review: FixReview): string {
  return review.verdict === "accepted"
    ? `The model's review of the mechanical edit: accepted. ${review.reason}`
    : `The model's review refused a mechanical edit that passes the tests: ${review.reason}`;
}

const failed = (status: string | undefined) => status === "fail" || status === "error";

/** The tests that failed on the unchanged code, each with its whole failure (cut long, marked) and its result after. */
export function failsThenPasses(
  before: TestEvidence,
  after: TestEvidence | undefined,
  added: ReadonlySet<string>,
): string[] {
  const afterById = new Map((after?.tests ?? []).map((t) => [t.id, t]));
  const failing = before.tests.filter((t) => failed(t.status));
  const fixed = failing.filter((t) => afterById.get(t.id)?.status === "pass").length;
  const lines = [
    after
      ? `Fails before, passes after: ${fixed} of the ${failing.length} failing test(s).`
      : `Failing before the change: ${failing.length} test(s); no candidate passed them.`,
    "",
  ];
  for (const t of failing) {
    const now = afterById.get(t.id)?.status;
    const result = !after ? "" : now === "pass" ? " → ✅ passes after" : ` → ❌ ${now ?? "not run"} after`;
    lines.push(`- \`${t.id}\`${added.has(t.id) ? " (new)" : ""}: ❌ ${t.status} before${result}`);
    if (t.message)
      lines.push(
        "",
        "  ```text",
        ...cut(t.message.trimEnd(), FAILURE_CHARS)
          .split("\n")
          .map((l) => `  ${l}`),
        "  ```",
      );
  }
  return lines;
}

/** The full suite before and after, per test: the counts are of the same test ids, so they add up. */
export function gateLines(before: TestEvidence, after: TestEvidence | undefined): string[] {
  const head = `Regression gate (full suite): before ${before.passed} passed, ${before.failed} failed`;
  if (!after) return [`${head}; not run after (no candidate passed the visible tests).`];
  const was = new Map(before.tests.map((t) => [t.id, t.status]));
  const count = (pred: (b: string | undefined, a: string) => boolean) =>
    after.tests.filter((t) => pred(was.get(t.id), t.status)).length;
  const kept = count((b, a) => b === "pass" && a === "pass");
  const repaired = count((b, a) => failed(b) && a === "pass");
  const broken = count((b, a) => b === "pass" && failed(a));
  const preexisting = after.tests.filter((t) => failed(was.get(t.id)) && failed(t.status));
  const added = after.tests.filter((t) => !was.has(t.id));
  const lines = [
    `${head}; after ${after.passed} passed, ${after.failed} failed.`,
    "",
    `- still passing: ${kept}; failing before, passing after: ${repaired}; passing before, failing after: ${broken}${broken === 0 ? " ✅" : " ❌"}`,
  ];
  if (added.length > 0)
    lines.push(`- added by this change: ${added.length} (${added.filter((t) => t.status === "pass").length} passing)`);
  if (preexisting.length > 0)
    lines.push(
      `- pre-existing failures (failing before the change too): ${preexisting.map((t) => `\`${t.id}\``).join(", ")}`,
    );
  return lines;
}

/** Tampering by outcome: every test that ran on the unchanged code ran again after the change. */
export function stillRunning(before: TestEvidence, after: TestEvidence): string {
  const ran = (s: string | undefined) => s === "pass" || failed(s);
  const now = new Map(after.tests.map((t) => [t.id, t.status]));
  const ranBefore = before.tests.filter((t) => ran(t.status));
  // As the engine judges it: a test whose generated id changed is matched by a new test that ran in its file.
  const fileOf = (id: string) => id.split(/::| > /)[0] ?? id;
  const earlier = new Set(before.tests.map((t) => t.id));
  const newRan = new Map<string, number>();
  for (const t of after.tests)
    if (!earlier.has(t.id) && ran(t.status)) newRan.set(fileOf(t.id), (newRan.get(fileOf(t.id)) ?? 0) + 1);
  const stopped = ranBefore.filter((t) => {
    if (ran(now.get(t.id))) return false;
    const left = newRan.get(fileOf(t.id)) ?? 0;
    if (now.has(t.id) || left === 0) return true;
    newRan.set(fileOf(t.id), left - 1);
    return false;
  });
  if (stopped.length === 0)
    return `✅ Every test that ran before the change ran after it (${ranBefore.length} of ${ranBefore.length}): none skipped, deselected, xfailed or missing.`;
  return `❌ ${stopped.length} of the ${ranBefore.length} tests that ran before the change did not run after it: ${stopped
    .slice(0, 10)
    .map((t) => `\`${t.id}\` (${now.get(t.id) ?? "missing"})`)
    .join(", ")}${stopped.length > 10 ? ", …" : ""}`;
}
