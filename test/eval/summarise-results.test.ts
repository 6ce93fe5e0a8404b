// The eval summary: solved count, median and p90 seconds per task, and candidates that timed out.
import { describe, expect, it } from "vitest";
import { emptyOutcome } from "../../src/engine/task.ts";
import type { TaskResult } from "../../src/eval/run-eval-task.ts";
import { resultsMarkdown, resultsSummaryLines, summarise } from "../../src/eval/summarise-results.ts";

function result(id: string, verdict: TaskResult["verdict"], wallSeconds: number, timedOut: number): TaskResult {
  const cost = { ...emptyOutcome("template").cost, wallSeconds, candidatesTried: timedOut + 1 };
  return {
    id,
    bugType: "local",
    strategy: "template",
    verdict,
    stopReason: verdict === "not-fixed" ? "exhausted" : "solved",
    message: "",
    cost,
    epg: undefined,
    llmWaitSeconds: 0,
    timedOut,
  };
}

describe("summarise", () => {
  const results = [
    result("a", "solved", 2, 0),
    result("b", "solved", 4, 3),
    result("c", "not-fixed", 10, 5),
    result("d", "plausible", 6, 0),
  ];

  it("counts the candidates that timed out over every task", () => {
    expect(summarise(results)).toEqual([
      expect.objectContaining({
        tasks: 4,
        solved: 2,
        plausible: 1,
        notFixed: 1,
        timedOutCandidates: 8,
        medianSeconds: 5,
        p90Seconds: 8.8,
      }),
    ]);
  });

  it("prints them in the table and in the summary line", () => {
    const table = resultsMarkdown(summarise(results)).split("\n");
    const columns = (table[0] ?? "").split("|").map((c) => c.trim());
    const row = (table[2] ?? "").split("|").map((c) => c.trim());
    expect(row[columns.indexOf("timed-out candidates")]).toBe("8");
    expect(row[columns.indexOf("median s")]).toBe("5.0");
    expect(row[columns.indexOf("p90 s")]).toBe("8.8");
    expect(resultsSummaryLines(summarise(results))).toBe(
      "template: 2 of 4 solved; median 5.0 s, p90 8.8 s per task; 8 candidate(s) timed out",
    );
  });
});
