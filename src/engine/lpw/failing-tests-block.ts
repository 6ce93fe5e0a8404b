// The failing tests as the plan-verification stage sees them: each test's source once
// (with its parametrize decorator), then each failing case by id with its parameters and
// how it fails now, the expected and actual values kept (whole up to a cap, else where
// they differ), since a plan is checked against exactly those values.
import { FIRST_MESSAGE_CHARS } from "../../verify/digest/digest-report.ts";
import { pytestDiff, summariseFailure } from "../../verify/digest/value-mismatch.ts";
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../../verify/test-report.ts";
import { parametrizeValues } from "./parametrize-values.ts";
import { testSource } from "./test-source.ts";

export async function failingTestsBlock(workspace: string, failing: readonly TestCaseResult[]): Promise<string> {
  const groups = new Map<string, { source: string | undefined; tests: TestCaseResult[] }>();
  for (const t of failing) {
    const key = t.id.replace(/\[.*\]$/, "");
    const group = groups.get(key) ?? { source: await testSource(workspace, t.id, t.file), tests: [] };
    group.tests.push(t);
    groups.set(key, group);
  }
  const blocks = await Promise.all(
    [...groups.values()].map(async ({ source, tests }) => {
      const params =
        source && tests.some((t) => /\[.*\]$/.test(t.id)) ? await parametrizeValues(source) : new Map<string, string>();
      const cases = tests.map((t) => {
        const id = /\[(.*)\]$/.exec(t.id)?.[1];
        const values = id === undefined ? undefined : params.get(id);
        // Each case by the runner's id (the id the verification names it by), even a single one.
        return `# ${t.id}${values ? `  parameters: ${values}` : ""}\n${failureLines(t)}`;
      });
      const head = source ?? "# (the test's source could not be read)";
      const note = tests.length > 1 ? `\n# (the source above, once, for its ${tests.length} failing cases)` : "";
      return `${head}${note}\n${cases.join("\n")}`;
    }),
  );
  return blocks.join("\n\n");
}

function failureLines(t: TestCaseResult): string {
  const message = t.message ? summariseFailure(stripVTControlCharacters(t.message), FIRST_MESSAGE_CHARS) : t.status;
  const diff = pytestDiff(stripVTControlCharacters(t.details ?? ""));
  return `# fails now with: ${message}${diff.length > 0 ? `\n# pytest's diff: ${diff.join(" | ")}` : ""}`;
}
