// Is a local task what it says it is? Its buggy repository fails the hidden tests, its
// reference fix passes them (and the visible suite), an issue-only task's visible tests
// all pass and a red-build task has a failing visible test. Run by `autogen-bot eval --check`
// and by the tests over bench/local-tasks, so every task is known to be solvable.
import type { SandboxOptions } from "../verify/sandbox/run-sandboxed.ts";
import { localVerifier } from "../verify/local-verifier.ts";
import { detectRunner } from "../verify/runners/detect-runner.ts";
import { allPassed, countByStatus, failingTests, type TestReport } from "../verify/test-report.ts";
import type { EvalTask } from "./humanevalfix-loader.ts";
import { runHiddenTests, writeFiles } from "./score-hidden.ts";
import { makeTempDir, removeTempDir } from "../workspace/temp-dirs.ts";

export type TaskCheck = {
  id: string;
  /** "issue-only": every visible test passes on the buggy code; "red": some fail. */
  kind: "issue-only" | "red";
  visible: { buggy: string; reference: string };
  hidden: { buggy: string; reference: string };
  problems: string[];
};

const tally = (report: TestReport) => {
  const c = countByStatus(report.tests);
  return `${c.pass} passed, ${c.fail + c.error} failed${report.run.timedOut ? ", timed out" : ""}`;
};

export async function checkLocalTask(task: EvalTask, sandbox: Omit<SandboxOptions, "cwd">): Promise<TaskCheck> {
  const problems: string[] = [];
  if (!task.referenceFiles || Object.keys(task.referenceFiles).length === 0)
    problems.push("no reference fix (reference/)");
  const unknown = Object.keys(task.referenceFiles ?? {}).filter((f) => !task.solutionFiles.includes(f));
  if (unknown.length > 0)
    problems.push(`the reference fix touches ${unknown.join(", ")}, which is not a non-test file of the repository`);
  const buggy = await makeTempDir("autogen-check-buggy-");
  const fixed = await makeTempDir("autogen-check-fixed-");
  try {
    await writeFiles(buggy, task.files);
    await writeFiles(fixed, { ...task.files, ...task.referenceFiles });
    const run = (dir: string) => localVerifier(detectRunner(dir), sandbox).run(dir, { kind: "all" });
    const [visibleBuggy, visibleFixed, hiddenBuggy, hiddenFixed] = [
      await run(buggy),
      await run(fixed),
      await runHiddenTests(task, buggy, sandbox),
      await runHiddenTests(task, fixed, sandbox),
    ];
    const kind = failingTests(visibleBuggy).length > 0 ? "red" : "issue-only";
    if (visibleBuggy.tests.length === 0) problems.push("the repository's visible tests do not load");
    if (kind === "issue-only" && task.issue === undefined)
      problems.push("every visible test passes and there is no issue.md: nothing shows the bug");
    if (!allPassed(visibleFixed)) problems.push(`the reference fix fails the visible tests (${tally(visibleFixed)})`);
    if (allPassed(hiddenBuggy)) problems.push("the buggy repository passes the hidden tests");
    if (!allPassed(hiddenFixed)) problems.push(`the reference fix fails the hidden tests (${tally(hiddenFixed)})`);
    return {
      id: task.id,
      kind,
      visible: { buggy: tally(visibleBuggy), reference: tally(visibleFixed) },
      hidden: { buggy: tally(hiddenBuggy), reference: tally(hiddenFixed) },
      problems,
    };
  } finally {
    await removeTempDir(buggy);
    await removeTempDir(fixed);
  }
}
