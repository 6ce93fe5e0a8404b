// HumanEvalFix (HumanEvalPack "fix", Python) rows into task repositories: the module
// with the buggy body, the docstring examples as visible pytest tests (one per assert
// where the check is a plain list of asserts), the full check kept apart as hidden test.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import { parsePython, type SyntaxNode } from "../engine/template/tree-sitter.ts";

const rowSchema = z.object({
  task_id: z.string(),
  prompt: z.string(),
  buggy_solution: z.string(),
  canonical_solution: z.string(),
  example_test: z.string(),
  test: z.string(),
  entry_point: z.string().regex(/^[A-Za-z_][A-Za-z0-9_]*$/),
  bug_type: z.string(),
});

export type HumanEvalFixRow = z.infer<typeof rowSchema>;

export type EvalTask = {
  id: string;
  bugType: string;
  /** Files of the task repository the engine works in. */
  files: Record<string, string>;
  /** Files added beside the final solution for hidden scoring, never shown to the engine. */
  hiddenFiles: Record<string, string>;
  /** The files the hidden tests need from the engine's final workspace. */
  solutionFiles: string[];
  /** What a user reported (local tasks with an issue.md): the engine starts from it as `autogen-bot fix --issue` does. */
  issue?: string | undefined;
  /** Files that replace the repository's to make the reference fix (local tasks); never shown to the engine. */
  referenceFiles?: Record<string, string> | undefined;
  /**
   * The visible tests come from a baseline run, as in the CLI and the App: the failing ones,
   * else (an issue, with a model) a reproduction test; otherwise all of the task's tests.
   */
  visibleFromBaseline?: boolean | undefined;
};

export async function loadHumanEvalFix(path: string): Promise<HumanEvalFixRow[]> {
  const text = await readFile(path, "utf8");
  return text
    .split("\n")
    .filter((line) => line.trim())
    .map((line, index) => {
      const parsed = rowSchema.safeParse(JSON.parse(line));
      if (!parsed.success)
        throw new Error(
          `${path}:${index + 1}: not a HumanEvalFix row: ${parsed.error.issues[0]?.message ?? "invalid"}`,
        );
      return parsed.data;
    });
}

export async function humanEvalFixTask(
  row: HumanEvalFixRow,
  which: "buggy" | "canonical" = "buggy",
): Promise<EvalTask> {
  const body = which === "buggy" ? row.buggy_solution : row.canonical_solution;
  return {
    id: row.task_id,
    bugType: row.bug_type,
    solutionFiles: ["solution.py"],
    files: {
      "solution.py": `${row.prompt}${body}`,
      "test_examples.py": await visibleTests(row),
    },
    hiddenFiles: { "test_hidden.py": await hiddenTest(row) },
  };
}

/** Definitions and imports of a test script, without its module-level `check(...)` call. */
async function definitions(source: string): Promise<{ kept: string; check: SyntaxNode | undefined; free: () => void }> {
  const tree = await parsePython(source);
  const kept: string[] = [];
  let check: SyntaxNode | undefined;
  for (const node of tree.rootNode.namedChildren) {
    if (!node) continue;
    const isCheckCall =
      node.type === "expression_statement" &&
      node.namedChildren[0]?.type === "call" &&
      node.namedChildren[0].childForFieldName("function")?.text === "check";
    if (isCheckCall) continue;
    if (node.type === "function_definition" && node.childForFieldName("name")?.text === "check") check = node;
    kept.push(node.text);
  }
  return { kept: kept.join("\n\n"), check, free: () => tree.delete() };
}

async function visibleTests(row: HumanEvalFixRow): Promise<string> {
  const header = `from solution import *\nfrom solution import ${row.entry_point}\n`;
  const { kept, check, free } = await definitions(row.example_test);
  try {
    const param = check?.childForFieldName("parameters")?.namedChildren[0]?.text ?? row.entry_point;
    const statements = (check?.childForFieldName("body")?.namedChildren ?? []).filter(
      (n): n is SyntaxNode => n !== null && n.type !== "comment",
    );
    if (check && statements.length > 0 && statements.every((n) => n.type === "assert_statement")) {
      const alias = param === row.entry_point ? "" : `from solution import ${row.entry_point} as ${param}\n`;
      const tests = statements.map((s, i) => `def test_example_${i + 1}():\n    ${s.text}\n`);
      return `${header}${alias}\n\n${tests.join("\n\n")}`;
    }
    return `${header}\n\n${kept}\n\n\ndef test_examples():\n    check(${row.entry_point})\n`;
  } finally {
    free();
  }
}

async function hiddenTest(row: HumanEvalFixRow): Promise<string> {
  const { kept, free } = await definitions(row.test);
  free();
  return `from solution import *\nfrom solution import ${row.entry_point}\n\n${kept}\n\n\ndef test_hidden():\n    check(${row.entry_point})\n`;
}
