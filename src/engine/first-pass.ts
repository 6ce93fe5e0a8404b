// The model-free template pass beside an LLM strategy. The model starts at once: its own
// stages (plan, verify, implement, refine) run first, and the template pass runs only if
// they end without a fix. A template edit that passes the tests ships only if the model,
// shown the issue and the diff, accepts it (a mechanical edit that fits the tests is often
// wrong on inputs they do not try). When the template pass finds no fix but learned
// something (suspicious lines, an edit that made some failing tests pass), the model runs
// once more with those findings in its context. The outcome carries every pass's costs and attempts.
import type { LlmClient } from "../llm/llm-client.ts";
import { addCosts } from "./reproduce/with-reproduction.ts";
import type { Outcome, PriorFindings, Strategy } from "./task.ts";
import { templateStrategyWith } from "./template/template-strategy.ts";

/** Stops after which a template pass has nothing to add: the tests do not load, nothing fails, the user or a budget stopped the job, the model judged no change is needed. */
const FINAL: ReadonlySet<Outcome["stopReason"]> = new Set([
  "nothing-to-fix",
  "broken-tests",
  "cancelled",
  "budget",
  "planned",
  "unsupported",
  "no-change",
]);

export function withTemplateAfter(next: Strategy, llm: LlmClient, template = templateStrategyWith({ llm })): Strategy {
  return {
    name: next.name,
    async run(task) {
      // Nothing fails yet: the template strategy has nothing to localise with.
      if (task.visible.kind === "reproduce") return next.run(task);
      const first = await next.run(task);
      if (first.status === "fixed" || FINAL.has(first.stopReason)) return first;
      task.onProgress?.({
        kind: "stage",
        stage: "template",
        detail: "the model found no fix: trying mechanical edits, each reviewed by the model",
      });
      // The first strategy's edits were undone, but the suite is run afresh for the second.
      const second = await template.run({ ...task, suiteBefore: undefined });
      const attempts = [
        ...first.attempts,
        ...second.attempts.map((a) => ({ ...a, index: a.index + first.attempts.length })),
      ];
      const cost = addCosts(first.cost, second.cost);
      if (second.status === "fixed") return { ...second, cost, attempts };
      // Without a fix the model's own run is the story; the template pass is one more sentence.
      const review = second.review ? { review: second.review } : {};
      const without = {
        ...first,
        ...review,
        message: `${first.message}; then mechanical edits: ${second.message}`,
        cost,
        attempts,
      };
      const findings = findingsOf(second);
      // A model run that ended in an error (an endpoint or schema failure) is not tried again.
      if (!findings || FINAL.has(second.stopReason) || first.stopReason === "error") return without;
      task.onProgress?.({
        kind: "stage",
        stage: "template",
        detail: "the model tries again, shown what the mechanical edits found",
      });
      const third = await next.run({ ...task, findings });
      const all = [...attempts, ...third.attempts.map((a) => ({ ...a, index: a.index + attempts.length }))];
      const total = addCosts(cost, third.cost);
      const note = `with the template pass's findings (${findingsSummary(findings)})`;
      if (third.status === "fixed")
        return { ...third, cost: total, attempts: all, message: `${third.message}, ${note}` };
      return {
        ...without,
        cost: total,
        attempts: all,
        message: `${without.message}; then the model again ${note}: ${third.message}`,
      };
    },
  };
}

/** What the template pass learned, or nothing worth a second model run. */
function findingsOf(outcome: Outcome): PriorFindings | undefined {
  const suspicious = outcome.plan.localisation.map((s) => ({ file: s.file, line: s.line, score: s.score }));
  const near = outcome.closestAttempt;
  // An edit is a near miss when it passes more visible tests than the unchanged code did.
  const nearMiss =
    near && near.passed > (outcome.evidence.before?.passed ?? 0)
      ? { diff: near.diff, passed: near.passed, failed: near.failed }
      : undefined;
  if (suspicious.length === 0 && !nearMiss) return undefined;
  return { suspicious, nearMiss };
}

function findingsSummary(findings: PriorFindings): string {
  const lines = `${findings.suspicious.length} suspicious line(s)`;
  return findings.nearMiss ? `${lines}, an edit passing ${findings.nearMiss.passed} test(s)` : lines;
}
