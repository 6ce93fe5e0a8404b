// What SLPW's and SEIDR's search chose, for a reader: SLPW's plan samples (how many differ),
// each plan's verification score and revision, the plans the bandit made programs of and
// the one whose program is the fix; SEIDR's drafts and, per generation, the candidates the
// ranking kept and repaired and those it replaced, with the fraction of visible tests each passed.
import type { Outcome, SampledPlan, ScoredCandidate, SearchSummary } from "../engine/task.ts";
import { cut } from "./report-sections.ts";

const STEP_CHARS = 120;

function plainStep(text: string): string {
  return cut(text, STEP_CHARS).replace(/\s+/g, " ").replaceAll("`", "'").trim();
}

function planLine(p: SampledPlan): string {
  const score = p.of === undefined ? "not verified" : `verification: ${p.right ?? 0} of ${p.of} test(s) matched`;
  const origin = p.parent ? `revision of \`${p.parent}\`` : "sample";
  return `- \`${p.id}\` (${origin}), ${score}: ${plainStep(p.steps[0] ?? "(no steps)")}${p.steps.length > 1 ? ` (+${p.steps.length - 1} step(s))` : ""}`;
}

/** ", refined (`prog-p1.r1`)" when the program that passed is a refinement, not the plan's own program. */
const refined = (plan: string, program: string | undefined) =>
  program === undefined || program === `prog-${plan}` ? "" : `, refined (\`${program}\`)`;

const candidates = (list: readonly ScoredCandidate[]) =>
  list.length === 0 ? "none" : list.map((c) => `#${c.id} (${c.score})`).join(", ");

export function searchLines(outcome: Outcome): string[] {
  const s = outcome.plan.search;
  return s ? ["", "### Search", "", ...searchSummaryLines(s)] : [];
}

/** The search as lines of markdown (SLPW's plans are a list after a blank line), for the report and the eval. */
export function searchSummaryLines(s: SearchSummary): string[] {
  const out: string[] = [];
  if (s.kind === "slpw") {
    out.push(
      `SLPW sampled ${s.samples} plan(s), ${s.distinct} distinct. A bandit chose which plan to verify next, rewarded by the visible tests its walk-through got right; a verification that disagreed revised the plan:`,
      "",
      ...s.plans.map(planLine),
      "",
      s.implemented.length === 0
        ? "No plan became a program."
        : `Programs were made from ${s.implemented.map((id) => `\`${id}\``).join(", ")}; ${s.chosen ? `the fix is the program of plan \`${s.chosen}\`${refined(s.chosen, s.chosenProgram)}.` : "none passed the visible tests and the regression gate."}`,
    );
    if (s.programs.length > 0)
      out.push(
        "",
        `Programs run, with the visible tests each passed: ${s.programs.map((p) => `\`${p.id}\` (${p.parent ? `refinement of \`${p.parent}\`` : `plan \`${p.plan}\``}) ${p.passed} of ${p.of}`).join("; ")}.`,
      );
    return out;
  }
  out.push(`SEIDR drafts: ${candidates(s.drafts)} (attempt number, fraction of the visible tests passed).`);
  for (const g of s.generations)
    out.push(
      `Generation ${g.generation}: repaired ${candidates(g.repaired)}; replaced (dropped by the ranking) ${candidates(g.replaced)}; repairs made: ${g.children.length === 0 ? "none" : g.children.map((c) => `#${c.id} from #${c.parent} (${c.score})`).join(", ")}.`,
    );
  return out;
}
