// The baseline every paper compares against: generate a change from the problem and the
// failing tests, then self-debug from the test output alone (no plan, no verification,
// no trace, no explanation), up to the refinement cap.
import type { LlmClient } from "../../llm/llm-client.ts";
import { digestReport } from "../../verify/digest/digest-report.ts";
import type { Edit } from "../../workspace/apply-edits.ts";
import { editsSchema } from "../lpw/schemas.ts";
import { SearchRun } from "../search/search-run.ts";
import type { Strategy } from "../task.ts";

export function directStrategy(options: { llm: LlmClient; maxRefinements?: number }): Strategy {
  return {
    name: "direct",
    run: (task) => {
      const run = new SearchRun(task, options.llm, "direct");
      return run.search(async ({ before, problem }) => {
        let report = before;
        let edits: Edit[] = [];
        for (let round = 0; round <= (options.maxRefinements ?? 12); round++) {
          run.ensureCandidateBudget();
          const stage = round === 0 ? "generate" : "self-debug";
          const { value } = await options.llm.call(
            stage,
            {
              untrusted: { problem, failures: digestReport(report), code: await run.code() },
              trusted: round === 0 ? {} : { instruction: "" },
            },
            editsSchema,
          );
          const proposed = run.editsOf(value);
          const result = await run.execute([...edits, ...proposed], stage);
          if (!result) {
            // The new edits did not apply: carry on from the previous program.
            await run.changes.restore();
            await run.changes.apply(edits);
            continue;
          }
          edits = [...edits, ...proposed];
          report = result.report;
          if (run.acceptIf(result))
            return run.finish(
              "solved",
              `the ${round === 0 ? "first change" : `change after ${round} self-debugging round(s)`} passes the visible tests and the regression gate`,
            );
        }
        return run.finish(
          "iterations",
          `no passing change after ${options.maxRefinements ?? 12} self-debugging rounds`,
        );
      });
    },
  };
}
