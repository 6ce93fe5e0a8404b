// The failing tests as the plan-verification stage sees them: each test's source once
// (with its parametrize decorator; a JavaScript test's call with its describe lines, by
// their line numbers), then each failing case by id with its parameters and how it fails
// now, the expected and actual values kept (whole up to a cap, else where they differ),
// since a plan is checked against exactly those values.
import type { TestCaseResult } from "../../verify/test-report.ts";
import { numberedLine } from "../../workspace/numbered-line.ts";
import { failureFirstLine, failureLines } from "./failure-lines.ts";
import { findJsTest, type FoundTest } from "./find-js-test.ts";
import { parametrizeValues } from "./parametrize-values.ts";
import { testSource } from "./test-source.ts";

/** Cases of one test shown with their whole failure; the rest by its first line. */
const WHOLE_CASES = 2;

export async function failingTestsBlock(workspace: string, failing: readonly TestCaseResult[]): Promise<string> {
  const groups = new Map<string, { source: string | undefined; python: boolean; tests: TestCaseResult[] }>();
  for (const t of failing) {
    const key = t.id.replace(/\[.*\]$/, "");
    const python = t.id.includes("::") || Boolean(t.file?.endsWith(".py"));
    const group = groups.get(key) ?? {
      source: python ? await testSource(workspace, t.id, t.file) : numbered(await findJsTest(workspace, t)),
      python,
      tests: [],
    };
    group.tests.push(t);
    groups.set(key, group);
  }
  const blocks = await Promise.all(
    [...groups.values()].map(async ({ source, python, tests }) => {
      const params =
        python && source && tests.some((t) => /\[.*\]$/.test(t.id))
          ? await parametrizeValues(source)
          : new Map<string, string>();
      const cases = tests.map((t, i) => {
        const id = /\[(.*)\]$/.exec(t.id)?.[1];
        const values = id === undefined ? undefined : params.get(id);
        // Each case by the runner's id (the id the verification names it by), even a single one; past the
        // first few cases of one test, how it fails in one line (its parameters carry what differs).
        const how = i < WHOLE_CASES ? failureLines(t) : failureFirstLine(t);
        return `# ${t.id}${values ? `  parameters: ${values}` : ""}\n${how}`;
      });
      const head = source ?? "# (the test's source could not be read)";
      const brief = tests.length > WHOLE_CASES ? `; after the first ${WHOLE_CASES}, how each fails in one line` : "";
      const note =
        tests.length > 1 ? `\n# (the source above, once, for its ${tests.length} failing cases${brief})` : "";
      return `${head}${note}\n${cases.join("\n")}`;
    }),
  );
  return blocks.join("\n\n");
}

/** A JavaScript test as the code section shows code: its file, then its lines by their true numbers, a gap marked. */
function numbered(found: FoundTest | undefined): string | undefined {
  if (!found) return undefined;
  const out = [`# ${found.file}`];
  let next = 1;
  for (const c of found.context) {
    if (c.line > next && next > 1) out.push("⋮");
    out.push(numberedLine(c.line, c.text));
    next = c.line + 1;
  }
  if (found.start > next && next > 1) out.push("⋮");
  found.body.forEach((text, i) => out.push(numberedLine(found.start + i, text)));
  return out.join("\n");
}
