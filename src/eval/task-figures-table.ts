// Per task, as markdown: the model calls by stage, tokens, the first model call's time (from the
// task's start, and from its baseline's end), the
// seconds in tests and the hidden tests' verdict (results.md, under the strategies' table).
import type { EvalResult } from "./run-eval.ts";

export function taskFiguresMarkdown(results: readonly EvalResult[]): string {
  const header =
    "| strategy | task | hidden tests | model calls | by stage | cached | prompt tok | completion tok | s to first call (after baseline) | test s | wall s |";
  const rule = `|${header
    .split("|")
    .slice(1, -1)
    .map(() => " --- ")
    .join("|")}|`;
  const rows = results.map((r) => {
    const m = r.model;
    const stages = m
      ? Object.entries(m.callsByStage)
          .map(([stage, n]) => `${stage} ${n}`)
          .join(", ") || "–"
      : "–";
    const after = m?.firstCallAfterBaselineSeconds;
    const first =
      m === undefined || m.firstCallSeconds === null
        ? "–"
        : `${m.firstCallSeconds.toFixed(1)}${after === undefined || after === null ? "" : ` (${after.toFixed(1)})`}`;
    const cells = [
      r.strategy,
      r.id,
      r.verdict === "solved" ? "pass" : "fail",
      m ? String(m.calls) : "–",
      stages,
      m ? String(m.cachedCalls) : "–",
      m ? String(m.promptTokens) : "–",
      m ? String(m.completionTokens) : "–",
      first,
      r.cost.testSeconds.toFixed(1),
      r.cost.wallSeconds.toFixed(1),
    ];
    return `| ${cells.join(" | ")} |`;
  });
  return [header, rule, ...rows].join("\n");
}
