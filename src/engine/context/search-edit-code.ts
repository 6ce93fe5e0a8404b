// The code SLPW's and SEIDR's implement, refine, draft and repair prompts show: LPW's edit
// context (the symbols the failing tests reach now, those the plan names, the lines changed
// so far, those the start's context showed: all of them when there is no plan, else those
// not found by words alone), never whole files.
import type { TestCaseResult } from "../../verify/test-report.ts";
import type { WorkspaceChanges } from "../lpw/workspace-changes.ts";
import type { CodeContext } from "./build-context.ts";
import { editContext } from "./edit-context.ts";

export type SearchEditCodeOptions = {
  workspace: string;
  problem: string;
  /** The symbols the start's context showed. */
  start: CodeContext;
  changes: WorkspaceChanges;
  isTestFile: (path: string) => boolean;
};

/** The options for a search's edits on this task: its workspace and test-file rule, the start's context, the run's changes. */
export function searchEditOptions(
  task: { workspace: string; isTestFile: (path: string) => boolean },
  changes: WorkspaceChanges,
  start: CodeContext,
  problem: string,
): SearchEditCodeOptions {
  return { workspace: task.workspace, problem, start, changes, isTestFile: task.isTestFile };
}

/** The code for an edit on the current files: the given plan's steps (none for SEIDR) and the tests failing now. */
export async function searchEditCode(
  options: SearchEditCodeOptions,
  plan: readonly string[],
  failing: readonly TestCaseResult[],
): Promise<string> {
  const context = await editContext(options.workspace, {
    problem: options.problem,
    plan,
    failing,
    changed: options.changes.changedLines(),
    // A plan names what it edits, and the start's finds by words alone are left to it; with no plan
    // (SEIDR's drafts and repairs) they are what the model was shown of the code: kept.
    earlier: options.start.symbols
      .filter((s) => plan.length === 0 || s.reason !== "retrieval")
      .map((s) => ({ path: s.path, name: s.name })),
    isTestFile: options.isTestFile,
  });
  return context.code || "(no code located)";
}
