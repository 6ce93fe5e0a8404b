// SLPW's and SEIDR's search per task, as the eval prints it under the task's line and writes
// it in results.md: the plans or drafts sampled, their scores and what the search chose.
import { searchSummaryLines } from "../report/search-section.ts";
import type { EvalResult } from "./run-eval.ts";

/** The search's lines for the console, without blank lines; none for a strategy that does not search. */
export function searchConsoleLines(result: EvalResult): string[] {
  return result.search ? searchSummaryLines(result.search).filter((line) => line !== "") : [];
}

/** A "### Search: <strategy> <task>" section per task that searched; empty when none did. */
export function searchMarkdown(results: readonly EvalResult[]): string {
  return results
    .flatMap((r) =>
      r.search ? [[`### Search: ${r.strategy} ${r.id}`, "", ...searchSummaryLines(r.search)].join("\n")] : [],
    )
    .join("\n\n");
}
