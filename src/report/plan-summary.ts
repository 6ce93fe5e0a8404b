// `/autogen plan`: the plan and its verification on the visible tests, posted instead of
// code.
import type { Outcome } from "../engine/task.ts";

export function planSummary(outcome: Outcome): string {
  if (!outcome.plan.steps) return `No plan: ${outcome.message}.`;
  const steps = outcome.plan.steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
  const verification = (outcome.plan.verification ?? [])
    .map((v) => `| ${v.test} | ${v.derived} | ${v.expected} | ${v.matches ? "✅" : "❌"} |`)
    .join("\n");
  return `The plan (${outcome.plan.verified ? "verified" : "not verified"} on the visible tests; no code was changed):\n\n${steps}\n\n| test | derived | expected | agrees |\n| --- | --- | --- | --- |\n${verification}`;
}
