// The plan and its verification as the implement, refine and analysis prompts show them
// (numbered steps; each test's walk-through in words, not the verification's JSON).
// Shared with `npm run bench:context`, which renders the implement prompt offline.
import type { Verification } from "./schemas.ts";

export function numbered(steps: readonly string[]): string {
  return steps.map((s, i) => `${i + 1}. ${s}`).join("\n");
}

export function formatVerification(v: Pick<Verification, "tests">): string {
  return v.tests
    .map(
      (t) =>
        `Test ${t.test}:\n${t.steps.map((s) => `  after step ${s.step}: ${s.value}`).join("\n")}\n  derived: ${t.derived}; expected: ${t.expected}; ${t.matches ? "agrees" : "DIFFERS"}`,
    )
    .join("\n\n");
}
