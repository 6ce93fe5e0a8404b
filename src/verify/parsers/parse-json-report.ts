// The JSON report Jest writes with `--json` and Vitest with `--reporter=json` (the same
// shape: files with their assertion results) into test results, with the ids the JUnit
// parser gives the same tests (`file > describe… > title`). A file that failed to load
// becomes one error result.
import { z } from "zod";
import { isForgedPath } from "../../workspace/safe-path.ts";
import type { TestCaseResult, TestStatus } from "../test-report.ts";

export class JsonReportError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "JsonReportError";
  }
}

const reportSchema = z.object({
  testResults: z.array(
    z.object({
      name: z.string(),
      status: z.string().optional(),
      message: z.string().optional(),
      assertionResults: z.array(
        z.object({
          ancestorTitles: z.array(z.string()).default([]),
          title: z.string(),
          status: z.string(),
          duration: z.number().nullish(),
          failureMessages: z.array(z.string()).nullish(),
        }),
      ),
    }),
  ),
});

const STATUS: Record<string, TestStatus> = {
  passed: "pass",
  failed: "fail",
  pending: "skip",
  skipped: "skip",
  todo: "skip",
  disabled: "skip",
  focused: "pass",
};

/** A checkout on an Actions runner (`/home/runner/work/<repo>/<repo>/`, self-hosted `…/_work/<repo>/<repo>/`) is the repository root. */
function runnerRelative(path: string): string {
  return path.replace(/^(?:\/home\/runner\/work|.*\/_work)\/([^/]+)\/\1\//, "");
}

/** `root`: the workspace (or the runner's checkout), so file paths become repository-relative. */
export function parseJsonReport(text: string, options: { root?: string } = {}): TestCaseResult[] {
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch (error) {
    throw new JsonReportError(`not JSON: ${(error as Error).message}`);
  }
  const parsed = reportSchema.safeParse(data);
  if (!parsed.success)
    throw new JsonReportError("not a Jest or Vitest JSON report (no testResults with assertionResults)");
  const base = options.root?.replace(/\/?$/, "/");
  const out: TestCaseResult[] = [];
  for (const file of parsed.data.testResults) {
    const path = base && file.name.startsWith(base) ? file.name.slice(base.length) : runnerRelative(file.name);
    // Written by the tests: a name that climbs out with `..` labels the results but is not kept as a file.
    const safeFile = isForgedPath(path) ? undefined : path;
    if (file.assertionResults.length === 0 && file.status === "failed") {
      out.push({
        id: path,
        name: path,
        file: safeFile,
        status: "error",
        message: file.message?.split("\n")[0],
        details: file.message,
      });
      continue;
    }
    for (const a of file.assertionResults) {
      const failure = (a.failureMessages ?? []).join("\n");
      out.push({
        id: [path, ...a.ancestorTitles, a.title].join(" > "),
        name: a.title,
        file: safeFile,
        status: STATUS[a.status] ?? "error",
        durationMs: a.duration === null || a.duration === undefined ? undefined : Math.round(a.duration),
        message: failure ? failure.split("\n")[0] : undefined,
        details: failure || undefined,
      });
    }
  }
  return out;
}
