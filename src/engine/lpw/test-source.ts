// The source of a visible test, found by its id on a real syntax tree: a pytest function
// (file::Class::name) or a JS test call (`it("name", ...)`, `test("name", ...)`).
import { join } from "node:path";
import { CONTEXT_READ_LIMIT, readWorktreeText } from "../../workspace/read-worktree-file.ts";
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

export async function testSource(workspace: string, id: string, fallbackFile?: string): Promise<string | undefined> {
  const pytest = id.includes("::");
  const file = pytest ? id.split("::")[0] : (fallbackFile ?? id.split(" > ").find((p) => grammarForFile(p)));
  const name = (pytest ? id.split("::").at(-1) : id.split(" > ").at(-1))?.replace(/\[.*\]$/, "");
  if (!file || !name) return undefined;
  const grammar = grammarForFile(file);
  if (!grammar) return undefined;
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
    const found = find(tree.rootNode, (n) =>
      grammar === "python"
        ? n.type === "function_definition" && n.childForFieldName("name")?.text === name
        : n.type === "call_expression" &&
          /^(it|test)$/.test(n.childForFieldName("function")?.text ?? "") &&
          stringArg(n) === name,
    );
    // A test's decorators (pytest's parametrize) are its inputs: shown with it.
    const shown = found?.parent?.type === "decorated_definition" ? found.parent : found;
    return shown ? `# ${file}\n${shown.text}` : undefined;
  } finally {
    tree.delete();
  }
}

function stringArg(call: SyntaxNode): string | undefined {
  const first = call.childForFieldName("arguments")?.namedChildren[0];
  return first?.type === "string" || first?.type === "template_string" ? first.text.slice(1, -1) : undefined;
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
