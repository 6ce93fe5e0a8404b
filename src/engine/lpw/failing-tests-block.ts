// The failing tests as the plan-verification stage sees them: each test's source and how
// it fails now, with the expected and actual values kept (whole up to a cap, else where
// they differ), since a plan is checked against exactly those values.
import { FIRST_MESSAGE_CHARS } from "../../verify/digest/digest-report.ts";
import { pytestDiff, summariseFailure } from "../../verify/digest/value-mismatch.ts";
import { stripVTControlCharacters } from "node:util";
import type { TestCaseResult } from "../../verify/test-report.ts";
import { testSource } from "./test-source.ts";

export async function failingTestsBlock(workspace: string, failing: readonly TestCaseResult[]): Promise<string> {
  const blocks = await Promise.all(
    failing.map(async (t) => {
      const source = (await testSource(workspace, t.id, t.file)) ?? `# ${t.id}`;
      const message = t.message ? summariseFailure(stripVTControlCharacters(t.message), FIRST_MESSAGE_CHARS) : t.status;
      const diff = pytestDiff(stripVTControlCharacters(t.details ?? ""));
      return `${source}\n# fails now with: ${message}${diff.length > 0 ? `\n# pytest's diff: ${diff.join(" | ")}` : ""}`;
    }),
  );
  return blocks.join("\n\n");
}
