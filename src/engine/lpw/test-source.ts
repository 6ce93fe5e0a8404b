// The source of a visible test, found by its id on a real syntax tree: a pytest function
// (file::Class::name) or a JS test call (`it("name", ...)`, `test("name", ...)`, found by findJsTest).
import { join } from "node:path";
import { CONTEXT_READ_LIMIT, readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";
import { findJsTest } from "./find-js-test.ts";

export async function testSource(workspace: string, id: string, fallbackFile?: string): Promise<string | undefined> {
  const pytest = id.includes("::");
  if (!pytest && !(fallbackFile ?? id).endsWith(".py")) {
    const found = await findJsTest(workspace, { id, file: fallbackFile });
    return found && `# ${found.file}\n${[...found.context.map((c) => c.text), ...found.body].join("\n")}`;
  }
  const file = pytest ? id.split("::")[0] : (fallbackFile ?? id.split(" > ").find((p) => grammarForFile(p)));
  const name = (pytest ? id.split("::").at(-1) : id.split(" > ").at(-1))?.replace(/\[.*\]$/, "");
  if (!file || !name) return undefined;
  const grammar = grammarForFile(file);
  if (grammar !== "python") return undefined;
  let source: string;
  try {
    source = await readWorktreeText(workspace, file.startsWith("/") ? file.slice(join(workspace, "/").length) : file, {
      maxBytes: CONTEXT_READ_LIMIT,
    });
  } catch {
    return undefined;
  }
  const tree = await parseSource(grammar, source);
  try {
    // `file::Class::name`: the method of that class (a unittest.TestCase's or a pytest class's).
    const owner = pytest && id.split("::").length > 2 ? id.split("::").at(-2) : undefined;
    const classNode = owner
      ? find(tree.rootNode, (n) => n.type === "class_definition" && n.childForFieldName("name")?.text === owner)
      : undefined;
    const found = find(
      classNode ?? tree.rootNode,
      (n) => n.type === "function_definition" && n.childForFieldName("name")?.text === name,
    );
    // A test's decorators (pytest's parametrize) are its inputs: shown with it.
    const shown = found?.parent?.type === "decorated_definition" ? found.parent : found;
    if (!shown) return undefined;
    // Whole lines, so the body keeps its indentation relative to the `def`; a method under its class's line.
    const lines = source.split("\n");
    const body = lines.slice(shown.startPosition.row, shown.endPosition.row + 1).join("\n");
    return `# ${file}\n${classHeaderOf(lines, shown)}${body}`;
  } finally {
    tree.delete();
  }
}

/** The line(s) of the class a test method is in, up to its colon; nothing for a module-level test. */
function classHeaderOf(lines: string[], shown: SyntaxNode): string {
  let node = shown.parent;
  while (node && node.type !== "class_definition") node = node.parent;
  if (!node) return "";
  const end = (node.childForFieldName("body") ?? node).startPosition.row;
  return `${lines.slice(node.startPosition.row, Math.max(end, node.startPosition.row + 1)).join("\n")}\n`;
}

function find(node: SyntaxNode, predicate: (n: SyntaxNode) => boolean): SyntaxNode | undefined {
  if (predicate(node)) return node;
  for (const child of node.namedChildren) {
    if (!child) continue;
    const hit = find(child, predicate);
    if (hit) return hit;
  }
  return undefined;
}
