// Results of an evaluation run as one row per strategy, and that table as markdown.
import type { TaskResult } from "./run-eval-task.ts";

export type StrategySummary = {
  strategy: string;
  tasks: number;
  solved: number;
  plausible: number;
  notFixed: number;
  llmCalls: number;
  promptTokensPerTask: number;
  completionTokensPerTask: number;
  promptTokensPerSolved: number | null;
  completionTokensPerSolved: number | null;
  medianEpg: number | null;
  candidatesPerFix: number | null;
  testRunsPerTask: number;
  testSecondsPerTask: number;
  medianSeconds: number;
  p90Seconds: number;
  llmWaitShare: number;
  /** Candidates stopped by their time limit, over all tasks. */
  timedOutCandidates: number;
  stopReasons: Record<string, number>;
};

export function quantile(values: number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const position = (sorted.length - 1) * q;
  const low = Math.floor(position);
  const high = Math.ceil(position);
  return (sorted[low] as number) + ((sorted[high] as number) - (sorted[low] as number)) * (position - low);
}

export function summarise(results: TaskResult[]): StrategySummary[] {
  const byStrategy = new Map<string, TaskResult[]>();
  for (const r of results) byStrategy.set(r.strategy, [...(byStrategy.get(r.strategy) ?? []), r]);
  return [...byStrategy].map(([strategy, rows]) => {
    const n = rows.length;
    const sum = (f: (r: TaskResult) => number) => rows.reduce((acc, r) => acc + f(r), 0);
    const solved = rows.filter((r) => r.verdict === "solved").length;
    const wall = rows.map((r) => r.cost.wallSeconds);
    const fixes = rows.filter((r) => r.epg !== undefined);
    const stopReasons: Record<string, number> = {};
    for (const r of rows) stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
    return {
      strategy,
      tasks: n,
      solved,
      plausible: rows.filter((r) => r.verdict === "plausible").length,
      notFixed: rows.filter((r) => r.verdict === "not-fixed").length,
      llmCalls: sum((r) => r.cost.llmCalls),
      promptTokensPerTask: sum((r) => r.cost.promptTokens) / n,
      completionTokensPerTask: sum((r) => r.cost.completionTokens) / n,
      promptTokensPerSolved: solved > 0 ? sum((r) => r.cost.promptTokens) / solved : null,
      completionTokensPerSolved: solved > 0 ? sum((r) => r.cost.completionTokens) / solved : null,
      medianEpg: quantile(
        fixes.map((r) => r.epg ?? 0),
        0.5,
      ),
      candidatesPerFix:
        fixes.length > 0 ? fixes.reduce((acc, r) => acc + r.cost.candidatesTried, 0) / fixes.length : null,
      testRunsPerTask: sum((r) => r.cost.testRuns) / n,
      testSecondsPerTask: sum((r) => r.cost.testSeconds) / n,
      medianSeconds: quantile(wall, 0.5) ?? 0,
      p90Seconds: quantile(wall, 0.9) ?? 0,
      llmWaitShare:
        sum((r) => r.cost.wallSeconds) > 0 ? sum((r) => r.llmWaitSeconds) / sum((r) => r.cost.wallSeconds) : 0,
      timedOutCandidates: sum((r) => r.timedOut),
      stopReasons,
    };
  });
}

const fmt = (v: number | null, digits = 1) => (v === null ? "–" : v.toFixed(digits));

export function resultsMarkdown(summaries: StrategySummary[]): string {
  const header =
    "| strategy | tasks | solved | plausible | not fixed | LLM calls | prompt tok/task | completion tok/task | prompt tok/solved | completion tok/solved | median EPG | candidates/fix | test runs/task | test s/task | median s | p90 s | timed-out candidates | LLM wait | stop reasons |";
  const rule = `|${header
    .split("|")
    .slice(1, -1)
    .map(() => " --- ")
    .join("|")}|`;
  const rows = summaries.map(
    (s) =>
      `| ${s.strategy} | ${s.tasks} | ${s.solved} | ${s.plausible} | ${s.notFixed} | ${s.llmCalls} | ${fmt(s.promptTokensPerTask, 0)} | ${fmt(s.completionTokensPerTask, 0)} | ${fmt(s.promptTokensPerSolved, 0)} | ${fmt(s.completionTokensPerSolved, 0)} | ${fmt(s.medianEpg)} | ${fmt(s.candidatesPerFix)} | ${fmt(s.testRunsPerTask)} | ${fmt(s.testSecondsPerTask)} | ${fmt(s.medianSeconds)} | ${fmt(s.p90Seconds)} | ${s.timedOutCandidates} | ${(s.llmWaitShare * 100).toFixed(0)}% | ${Object.entries(
        s.stopReasons,
      )
        .map(([k, v]) => `${k} ${v}`)
        .join(", ")} |`,
  );
  return [header, rule, ...rows].join("\n");
}

/** One line per strategy: solved count, median and p90 seconds per task, candidates that timed out. */
export function resultsSummaryLines(summaries: StrategySummary[]): string {
  return summaries
    .map(
      (s) =>
        `${s.strategy}: ${s.solved} of ${s.tasks} solved; median ${fmt(s.medianSeconds)} s, p90 ${fmt(s.p90Seconds)} s per task; ${s.timedOutCandidates} candidate(s) timed out`,
    )
    .join("\n");
}
