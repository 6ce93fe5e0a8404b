// A module's top-level assignments (`_IRR_S2P = {...}`, `const LIMIT = 3`) with their line
// spans, so a function shown alone can be shown with the module-level names it uses.
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

export type ModuleName = { name: string; startLine: number; endLine: number };

export async function moduleNamesOf(path: string, source: string): Promise<ModuleName[]> {
  const grammar = grammarForFile(path);
  if (!grammar) return [];
  const tree = await parseSource(grammar, source);
  try {
    const out: ModuleName[] = [];
    for (const child of tree.rootNode.namedChildren) {
      if (!child) continue;
      const node = child.type === "export_statement" ? (child.childForFieldName("declaration") ?? child) : child;
      const span = { startLine: child.startPosition.row + 1, endLine: child.endPosition.row + 1 };
      for (const name of assignedNames(node)) out.push({ name, ...span });
    }
    return out;
  } finally {
    tree.delete();
  }
}

function assignedNames(node: SyntaxNode): string[] {
  if (node.type === "expression_statement") {
    // Python `NAME = value`, `A = B = value`, `NAME: T = value`.
    const out: string[] = [];
    let assignment = node.namedChildren[0];
    while (assignment && assignment.type === "assignment") {
      const left = assignment.childForFieldName("left");
      if (left?.type === "identifier") out.push(left.text);
      assignment = assignment.childForFieldName("right");
    }
    return out;
  }
  if (node.type === "lexical_declaration" || node.type === "variable_declaration") {
    // JS `const NAME = value` (functions and requires are symbols and imports already).
    if (/\brequire\s*\(/.test(node.text)) return [];
    return node.namedChildren.flatMap((d) => {
      const name = d?.childForFieldName("name");
      const value = d?.childForFieldName("value");
      if (!name || name.type !== "identifier" || !value) return [];
      return /arrow_function|function_expression/.test(value.type) ? [] : [name.text];
    });
  }
  return [];
}
