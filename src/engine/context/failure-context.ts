// The code context of the plan and verify prompts once failing tests exist (the reproduction
// test, or the task's red tests): the files the failures name, their stack frames, the lines
// an earlier template pass found most suspicious, the identifiers the issue names, and what
// the failing tests' files reach through their imports. Shared by the LPW strategy and
// `npm run bench:context -- --upstream`, so the benchmark measures the prompt's own context.
import type { LlmClient } from "../../llm/llm-client.ts";
import type { TestCaseResult } from "../../verify/test-report.ts";
import { namedIdentifiers } from "../reproduce/reproduce-issue.ts";
import { buildContext, type CodeContext, type Frame } from "./build-context.ts";
import { failureFrames } from "./failure-frames.ts";

export type FailureContextOptions = {
  /** The issue (or the task's description). */
  problem: string;
  /** The failures as the prompt shows them (the digest of the baseline run). */
  digest: string;
  failing: readonly TestCaseResult[];
  /** Lines an earlier template pass found most suspicious. */
  suspicious?: readonly Frame[];
  isTestFile: (path: string) => boolean;
  llm?: LlmClient | undefined;
};

export async function failureContext(workspace: string, options: FailureContextOptions): Promise<CodeContext> {
  const { failing } = options;
  const mentioned = [
    ...new Set(
      failing
        .flatMap((t) => [
          t.file,
          ...[...(t.details ?? "").matchAll(/([\w./-]+\.(?:py|[cm]?[jt]sx?))[:"]/g)].map((m) => m[1]),
        ])
        .filter((f): f is string => Boolean(f)),
    ),
  ];
  // The failures' own frames first, then the lines an earlier template pass found most suspicious.
  const frames = [...failureFrames(failing, workspace), ...(options.suspicious ?? []).slice(0, 5)];
  return buildContext(workspace, {
    query: `${options.problem}\n${options.digest}`,
    // What the code is about: the issue and the failing tests' names; their output's values count less.
    about: `${options.problem}\n${failing.map((t) => t.name || t.id).join("\n")}`,
    mentioned,
    frames,
    named: namedIdentifiers(options.problem),
    issue: options.problem,
    isTestFile: options.isTestFile,
    llm: options.llm,
  });
}
