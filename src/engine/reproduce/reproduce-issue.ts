// The reproduction stage every LLM strategy shares: from the issue text, the code BM25
// locates for it and examples of the repository's tests, the model writes a new test
// file; the bot runs it and takes the ids of its failing tests from the runner's report
// (never from the model), checks that they fail as tests and not because the file does
// not load, and on a rejection tells the model why and asks again, up to `attempts` times.
// The accepted answer also carries the calls the behaviour check runs on a fix
// (reproduction-calls.ts), when the runner's language has a harness.
import { existsSync } from "node:fs";
import { rm } from "node:fs/promises";
import type { LlmClient } from "../../llm/llm-client.ts";
import { wrongFailureReason } from "../../verify/load-failure.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import type { TestCaseResult, TestReport } from "../../verify/test-report.ts";
import { applyEdits, EditError } from "../../workspace/apply-edits.ts";
import { CONTEXT_READ_LIMIT, tryReadWorktreeText } from "../../workspace/read-worktree-file.ts";
import { safeRepoPath, UnsafePathError } from "../../workspace/safe-path.ts";
import { buildContext, type CodeContext } from "../context/build-context.ts";
import { isSourceFile, repoFiles } from "../context/repo-files.ts";
import type { IssueCalls } from "../behaviour/behaviour-calls.ts";
import { behaviourLanguage } from "../behaviour/behaviour-language.ts";
import { namesNoFile, newAgainstBaseline } from "./new-tests.ts";
import { callsPromptVars, reproductionAnswer } from "./reproduction-calls.ts";
import type { Reproduction, Task } from "../task.ts";

/** The openings of at most two example test files share this room (imports and a first test): the style, not the suite. */
const TEST_EXAMPLE_CHARS = 1_500;
/** A second example file is shown only when this much room is left for it. */
const SECOND_EXAMPLE_MIN_CHARS = 300;

export type ReproductionResult =
  | ({ ok: true; attempts: number; issueCalls?: IssueCalls | undefined } & Reproduction)
  | { ok: false; reason: string; attempts: number };

export type ReproductionCost = { testRuns: number; testSeconds: number };

export async function reproduceIssue(
  task: Task,
  llm: LlmClient,
  cost: ReproductionCost,
  options: { attempts?: number } = {},
): Promise<ReproductionResult> {
  const maxAttempts = options.attempts ?? 3;
  const problem = task.description ?? "";
  const sources = repoFiles(task.workspace).filter((f) => isSourceFile(f) && !task.isTestFile(f));
  const context = await issueContext(task.workspace, problem, task.isTestFile);
  const examples = await testExamples(task, context.files);
  const sourceText = (
    await Promise.all(
      sources
        .slice(0, 400)
        .map(async (f) => (await tryReadWorktreeText(task.workspace, f, { maxBytes: CONTEXT_READ_LIMIT })) ?? ""),
    )
  ).join("\n");
  const language = behaviourLanguage(task.runnerName);
  const answer = reproductionAnswer(language);
  const rejections: string[] = [];
  // The suite without the new file, for a runner whose results name no file (TAP): the pipeline's, else made once here.
  const suite = { baseline: task.suiteBaseline };
  for (let attempt = 1; attempt <= maxAttempts; attempt++) {
    task.onProgress?.({ kind: "stage", stage: "reproduce", detail: `attempt ${attempt} of ${maxAttempts}` });
    const feedback =
      rejections.length === 0 ? "(none)" : rejections.map((r, i) => `Attempt ${i + 1} was rejected: ${r}`).join("\n");
    const { value } = await llm.call(
      "reproduce",
      {
        untrusted: { problem, testExample: examples, code: context.code || "(no code located)", feedback },
        trusted: { ...callsPromptVars(language), framework: task.runnerName, attempts: String(maxAttempts) },
      },
      answer.schema,
    );
    const verdict = await tryTest(task, value, sourceText, cost, suite);
    if (verdict.ok)
      return {
        ok: true,
        attempts: attempt,
        path: value.path,
        content: value.content,
        testIds: verdict.testIds,
        failure: verdict.failure,
        issueCalls: answer.issueCalls(value),
      };
    rejections.push(verdict.reason);
  }
  return {
    ok: false,
    attempts: maxAttempts,
    reason: `${maxAttempts === 1 ? "the test the model wrote was" : `all ${maxAttempts} tests the model wrote were`} rejected; the last: ${rejections.at(-1) ?? "no answer"}`,
  };
}

/** The code an issue points at, before any test shows the bug: the reproduction stage's context. */
export async function issueContext(
  workspace: string,
  problem: string,
  isTestFile: (path: string) => boolean,
): Promise<CodeContext> {
  const sources = repoFiles(workspace).filter((f) => isSourceFile(f) && !isTestFile(f));
  const named = namedIdentifiers(problem);
  return buildContext(workspace, {
    query: `${problem}\n${named.join(" ")}`,
    mentioned: namedFiles(problem, sources),
    named,
    issue: problem,
    isTestFile,
  });
}

type Verdict = { ok: true; testIds: string[]; failure: string } | { ok: false; reason: string };

async function tryTest(
  task: Task,
  answer: { path: string; content: string; expectedFailure: string },
  sourceText: string,
  cost: ReproductionCost,
  suite: { baseline: TestReport | undefined },
): Promise<Verdict> {
  const { path, content, expectedFailure } = answer;
  if (!task.isTestFile(path))
    return {
      ok: false,
      reason: `${path} is not where the test runner looks for tests; name it like the existing test files`,
    };
  let full: string;
  try {
    full = safeRepoPath(task.workspace, path);
  } catch (error) {
    if (error instanceof UnsafePathError) return { ok: false, reason: `${path} is not a path inside the repository` };
    throw error;
  }
  if (existsSync(full)) return { ok: false, reason: `${path} already exists; write a new test file` };
  try {
    await applyEdits(task.workspace, [{ kind: "create", path, content }]);
  } catch (error) {
    if (error instanceof EditError || error instanceof UnsafePathError)
      return { ok: false, reason: `the file could not be written: ${error.message}` };
    throw error;
  }
  let keep = false;
  try {
    // pytest selects a file by its path; other runners run everything and the file's tests are picked out.
    const selection: TestSelection = task.runnerName === "pytest" ? { kind: "tests", ids: [path] } : { kind: "all" };
    const run = async () => {
      const report = await task.verifier.run(task.workspace, selection);
      cost.testRuns += 1;
      cost.testSeconds += report.run.durationMs / 1000;
      return report;
    };
    const report = await run();
    if (!suite.baseline && selection.kind === "all" && namesNoFile(report, path)) {
      // No run of the suite without the file to tell its tests by: one now, kept for later attempts.
      await rm(full, { force: true });
      suite.baseline = await run();
      await applyEdits(task.workspace, [{ kind: "create", path, content }]);
    }
    const verdict = judge(task, path, report, expectedFailure, sourceText, suite.baseline);
    keep = verdict.ok;
    return verdict;
  } finally {
    if (!keep) await rm(full, { force: true });
  }
}

function judge(
  task: Task,
  path: string,
  report: TestReport,
  expectedFailure: string,
  sourceText: string,
  baseline: TestReport | undefined,
): Verdict {
  let mine = report.tests.filter((t) => inFile(t, path));
  if (mine.length === 0 && baseline && namesNoFile(report, path)) {
    // TAP names no file: the file's tests are those new against the suite's run without it.
    const added = newAgainstBaseline(baseline, report);
    if (added.kind === "clash")
      return {
        ok: false,
        reason: `the runner's output (TAP) names no file, so the new file's tests are told from the others by name, and its test(s) ${added.names.map((n) => `'${n}'`).join(", ")} take the name of existing tests; give each test in the new file a name no existing test has`,
      };
    if (added.tests.length === 0) {
      const tail = report.run.output.trim().split("\n").slice(-4).join(" | ").slice(0, 400);
      return {
        ok: false,
        reason: `the runner's output (TAP) names no file, and no test in it is new against the suite's run without ${path} (the same ${report.tests.length} test name(s) as before; output ends with: ${tail || "(nothing)"}); make sure the file loads and declares its tests with the framework's test function as the existing test files do, each under a name no existing test has`,
      };
    }
    mine = added.tests;
  }
  if (mine.length === 0) {
    const tail = report.run.output.trim().split("\n").slice(-4).join(" | ").slice(0, 400);
    return {
      ok: false,
      reason: `the runner reported no test from ${path} (it reported ${report.tests.length} other test(s); output ends with: ${tail || "(nothing)"})`,
    };
  }
  const failing = mine.filter((t) => t.status === "fail" || t.status === "error");
  for (const t of failing) {
    const wrong = wrongFailureReason(t, report, task.workspace, sourceText);
    if (wrong) return { ok: false, reason: `${t.id} ${wrong}` };
  }
  if (failing.length === 0)
    return {
      ok: false,
      reason: `${mine.every((t) => t.status === "skip") ? "its tests were skipped" : `its test(s) pass on the unchanged code (${mine.map((t) => t.id).join(", ")}), so they do not show the bug`}`,
    };
  const erroring = failing.find((t) => t.status === "error" && !(t.message ?? "").includes(expectedFailure));
  if (erroring)
    return {
      ok: false,
      reason: `${erroring.id} errors (${firstLine(erroring)}) instead of failing for the reported reason (${expectedFailure})`,
    };
  return { ok: true, testIds: failing.map((t) => t.id), failure: firstLine(failing[0] as TestCaseResult) };
}

function inFile(t: TestCaseResult, path: string): boolean {
  return t.file === path || t.id === path || t.id.startsWith(`${path}::`) || t.id.startsWith(`${path} > `);
}

function firstLine(t: TestCaseResult): string {
  return (t.message ?? t.status).split("\n")[0] ?? "";
}

/** Identifiers the issue names: `code spans`, calls, and camelCase or snake_case words. */
export function namedIdentifiers(text: string): string[] {
  const out = new Set<string>();
  for (const m of text.matchAll(/`([^`\n]{1,80})`/g))
    for (const w of (m[1] ?? "").matchAll(/[A-Za-z_$][\w$]*/g)) out.add(w[0]);
  for (const m of text.matchAll(/\b([A-Za-z_$][\w$]*)\s*\(/g)) out.add(m[1] ?? "");
  for (const m of text.matchAll(/\b([a-z]+(?:[A-Z][a-z0-9]*)+|[a-z0-9]+(?:_[a-z0-9]+)+)\b/g)) out.add(m[1] ?? "");
  out.delete("");
  return [...out].slice(0, 40);
}

function namedFiles(text: string, sources: string[]): string[] {
  const named = [...text.matchAll(/[\w./-]+\.(?:py|[cm]?[jt]sx?)\b/g)].map((m) => m[0].replace(/^\.\//, ""));
  return sources.filter((s) => named.some((n) => s === n || s.endsWith(`/${n}`)));
}

/** Up to two existing test files, those that import the located code first. */
export async function testExamples(task: Pick<Task, "workspace" | "isTestFile">, located: string[]): Promise<string> {
  const tests = repoFiles(task.workspace).filter((f) => task.isTestFile(f) && isSourceFile(f));
  if (tests.length === 0) return "(no existing tests)";
  const stems = located
    .map((f) => (f.split("/").at(-1) ?? f).replace(/\.[^.]+$/, ""))
    .filter((s) => s.length > 1 && s !== "__init__" && s !== "index");
  const texts = await Promise.all(
    tests.map(async (f) => ({
      f,
      text: (await tryReadWorktreeText(task.workspace, f, { maxBytes: CONTEXT_READ_LIMIT })) ?? "",
    })),
  );
  const score = (text: string) => stems.filter((s) => text.includes(s)).length;
  const chosen = texts
    .filter((t) => t.text.trim() !== "")
    .sort((a, b) => score(b.text) - score(a.text))
    .slice(0, 2);
  const out: string[] = [];
  let room = TEST_EXAMPLE_CHARS;
  for (const t of chosen) {
    if (out.length > 0 && room < SECOND_EXAMPLE_MIN_CHARS) break;
    const text = opening(t.text, room);
    out.push(`--- ${t.f}\n${text}`);
    room -= text.length;
  }
  return out.join("\n\n");
}

/** A text's first lines up to a length, cut at a line's end (a longer first line is cut where it reaches it). */
function opening(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = text.lastIndexOf("\n", max);
  return end > 0 ? text.slice(0, end) : text.slice(0, max);
}
