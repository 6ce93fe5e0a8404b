// `npm run bench:context`: what the first prompt that needs the code (the reproduction
// prompt, from the issue alone) shows on fixture tasks: the local benchmark's tasks (the
// changed functions come from the diff to their reference fix) and a 2,000+-line module with
// the bug deep inside. Prints per task whether every changed function is shown whole with
// its true line numbers, the context's and the whole prompt's characters, and the median.
// `-- --upstream`: the same on the real upstream bugs (scripts/bench-context-upstream.ts).
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync, mkdirSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, relative } from "node:path";
import { symbolsOf, type CodeSymbol } from "../src/engine/context/symbols.ts";
import { behaviourLanguage } from "../src/engine/behaviour/behaviour-language.ts";
import { isTestFile } from "../src/engine/is-test-file.ts";
import { issueContext, testExamples } from "../src/engine/reproduce/reproduce-issue.ts";
import { callsPromptVars } from "../src/engine/reproduce/reproduction-calls.ts";
import { renderPrompt } from "../src/llm/prompts.ts";
import { numberedLine } from "../src/workspace/numbered-line.ts";
import { gridRepo, ISSUE, tableModule } from "../test/support/context-fixture.ts";
import { benchUpstreamContext } from "./bench-context-upstream.ts";

type Fixture = { id: string; repo: string; issue: string; changed: Map<string, number[]> };

function walk(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? walk(join(dir, e.name)) : [join(dir, e.name)],
  );
}

/** Lines of the buggy file that differ from the reference fix (a plain line-by-line comparison of a small hunk). */
function changedLines(before: string, after: string): number[] {
  const a = before.split("\n");
  const b = after.split("\n");
  let start = 0;
  while (start < a.length && a[start] === b[start]) start++;
  let endA = a.length - 1;
  let endB = b.length - 1;
  while (endA >= start && endB >= start && a[endA] === b[endB]) {
    endA--;
    endB--;
  }
  const out: number[] = [];
  for (let n = start; n <= Math.max(start, endA); n++) out.push(n + 1);
  return out;
}

function localTasks(root: string): Fixture[] {
  if (!existsSync(root)) return [];
  return readdirSync(root).map((id) => {
    const dir = join(root, id);
    const changed = new Map<string, number[]>();
    for (const file of walk(join(dir, "reference"))) {
      const path = relative(join(dir, "reference"), file);
      const buggy = join(dir, "repo", path);
      if (existsSync(buggy)) changed.set(path, changedLines(readFileSync(buggy, "utf8"), readFileSync(file, "utf8")));
    }
    return { id, repo: join(dir, "repo"), issue: readFileSync(join(dir, "issue.md"), "utf8"), changed };
  });
}

function gridFixture(): Fixture {
  const dir = mkdtempSync(join(tmpdir(), "bench-context-"));
  for (const [path, text] of Object.entries(gridRepo())) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  const line =
    tableModule()
      .split("\n")
      .findIndex((l) => l.includes("abs(width) or 1")) + 1;
  return {
    id: "grid-wrap-width (2,119-line module)",
    repo: dir,
    issue: ISSUE,
    changed: new Map([["grid/table.py", [line]]]),
  };
}

/** The innermost symbols around the changed lines. */
async function changedSymbols(
  repo: string,
  changed: Map<string, number[]>,
): Promise<Array<{ path: string; symbol: CodeSymbol }>> {
  const out: Array<{ path: string; symbol: CodeSymbol }> = [];
  for (const [path, lines] of changed) {
    const symbols = await symbolsOf(path, readFileSync(join(repo, path), "utf8"));
    for (const line of lines) {
      const inner = symbols
        .filter((s) => s.startLine <= line && line <= s.endLine)
        .sort((a, b) => a.endLine - a.startLine - (b.endLine - b.startLine))[0];
      if (inner && !out.some((o) => o.path === path && o.symbol.name === inner.name)) out.push({ path, symbol: inner });
    }
  }
  return out;
}

/** Every line of the symbol appears in the code with its true number. */
function shownWhole(code: string, path: string, symbol: CodeSymbol, text: string): boolean {
  const section = code.split(/\n(?=--- )/).find((s) => s.startsWith(`--- ${path}`));
  if (!section) return false;
  const lines = text.split("\n");
  const shown = new Set(section.split("\n"));
  for (let n = symbol.startLine; n <= symbol.endLine; n++)
    if (!shown.has(numberedLine(n, lines[n - 1] ?? ""))) return false;
  return true;
}

if (process.argv.includes("--upstream")) {
  await benchUpstreamContext(process.argv.slice(2).filter((a) => a !== "--upstream"));
  process.exit(0);
}
const grid = gridFixture();
const fixtures = [...localTasks(join(import.meta.dirname, "../bench/local-tasks")), grid];
const rows: Array<{ id: string; shown: boolean; context: number; prompt: number }> = [];
console.log("task | changed function(s) | shown whole in the first prompt | context chars | reproduce prompt chars");
for (const f of fixtures) {
  const work = mkdtempSync(join(tmpdir(), "bench-context-ws-"));
  cpSync(f.repo, work, { recursive: true });
  try {
    const context = await issueContext(work, f.issue, isTestFile);
    const examples = await testExamples({ workspace: work, isTestFile }, context.files);
    const prompt = renderPrompt("reproduce", {
      untrusted: {
        problem: f.issue,
        testExample: examples,
        code: context.code || "(no code located)",
        feedback: "(none)",
      },
      trusted: { ...callsPromptVars(behaviourLanguage("pytest")), framework: "pytest", attempts: "3" },
    });
    const symbols = await changedSymbols(work, f.changed);
    const shown =
      symbols.length > 0 &&
      symbols.every((s) => shownWhole(context.code, s.path, s.symbol, readFileSync(join(work, s.path), "utf8")));
    const chars = prompt.system.length + prompt.user.length;
    rows.push({ id: f.id, shown, context: context.code.length, prompt: chars });
    console.log(
      `${f.id} | ${symbols.map((s) => `${s.path}:${s.symbol.name}@${s.symbol.startLine}`).join(", ") || "(none found)"} | ${shown ? "yes" : "NO"} | ${context.code.length} | ${chars}`,
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}
rmSync(grid.repo, { recursive: true, force: true });
const sorted = rows.map((r) => r.prompt).sort((a, b) => a - b);
const median = sorted.length
  ? (sorted[Math.floor((sorted.length - 1) / 2)]! + sorted[Math.ceil((sorted.length - 1) / 2)]!) / 2
  : 0;
console.log(
  `\nchanged function shown whole in the first prompt: ${rows.filter((r) => r.shown).length} of ${rows.length}; median prompt ${median} characters; largest ${sorted.at(-1) ?? 0}`,
);
