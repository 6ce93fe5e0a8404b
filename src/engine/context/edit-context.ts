// The code an implement or refine prompt shows: the same symbol context as the plan's,
// built again from the current files (an earlier edit may have moved lines), centred on
// what the edit needs: the lines changed so far, the symbols the failing tests reach now,
// those the plan names, then those the plan was made from. Each symbol whole with its class
// header and imports, true line numbers, cuts only between symbols; search/replace edits
// copied from the lines shown apply to the whole file. No callers' signatures and no map of
// other files: the plan says where the change goes, and only the lines shown can be edited.
import { namedIdentifiers } from "../reproduce/reproduce-issue.ts";
import type { TestCaseResult } from "../../verify/test-report.ts";
import { buildContext, type CodeContext, type Frame } from "./build-context.ts";
import { failureFrames } from "./failure-frames.ts";

export type EditContextOptions = {
  problem: string;
  plan: readonly string[];
  /** The tests failing now (the baseline's before the first edit). */
  failing: readonly TestCaseResult[];
  /** Lines the attempts so far changed, in the current files. */
  changed: readonly Frame[];
  /** The symbols the plan's context showed (qualified names), kept in view. */
  earlier: ReadonlyArray<{ path: string; name: string }>;
  isTestFile: (path: string) => boolean;
  maxChars?: number;
};

/** More room than the plan's context: the edit needs the plan's symbols and the changed ones. */
const EDIT_CONTEXT_CHARS = 9_000;

export async function editContext(workspace: string, options: EditContextOptions): Promise<CodeContext> {
  const planText = options.plan.join("\n");
  const names = planNames(planText);
  // Of the plan context's symbols, those the plan names: the plan walked that code and says
  // where the change goes (a second loader function it never names is not shown whole again).
  // A plan that names none of them keeps them all.
  const byPlan = options.earlier.filter(
    (s) => names.includes(s.name) || names.includes(s.name.split(".").at(-1) ?? ""),
  );
  const earlier = byPlan.length ? byPlan : options.earlier;
  // The plan's words name symbols only in the files the edit is about (the focal files and
  // those changed so far): elsewhere a shared word (`__bool__`, `Comment`) is another thing.
  const focalFiles = [...new Set([...options.changed.map((f) => f.file), ...options.earlier.map((s) => s.path)])];
  return buildContext(workspace, {
    query: `${options.problem}\n${planText}`,
    mentioned: [...new Set([...options.changed.map((f) => f.file), ...earlier.map((s) => s.path)])],
    frames: [...options.changed, ...failureFrames(options.failing, workspace)],
    named: [...new Set([...names, ...earlier.map((s) => s.name)])],
    namedIn: focalFiles.length ? focalFiles : undefined,
    isTestFile: options.isTestFile,
    maxChars: options.maxChars ?? EDIT_CONTEXT_CHARS,
    surroundings: false,
  });
}

/** The identifiers a plan names: the kinds of names, plus dotted (`Class.method`), dunder (`__getitem__`) and private (`_name`) ones. */
export function planNames(text: string): string[] {
  const out = new Set(namedIdentifiers(text));
  for (const m of text.matchAll(/\b([A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+)\b/g)) {
    const parts = (m[1] ?? "").split(".");
    // "Class.method" and its last part; a file name ("table.py") is not a symbol.
    if (/^(py|[cm]?[jt]sx?)$/.test(parts.at(-1) ?? "")) continue;
    out.add(parts.slice(-2).join("."));
    out.add(parts.at(-1) ?? "");
  }
  for (const m of text.matchAll(/(?<![\w])(__[a-z][a-z0-9_]*__)(?![\w])/g)) out.add(m[1] ?? "");
  // A private name (`_change_splitlevel`): the kinds of names miss its leading underscore.
  for (const m of text.matchAll(/(?<![\w$])(_[A-Za-z][\w$]*)/g)) out.add(m[1] ?? "");
  out.delete("");
  return [...out];
}
