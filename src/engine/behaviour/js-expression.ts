// A JavaScript call from the model is run only when it is one expression, parsed the way
// the harness evaluates it (`(call)` as a function's return value): no statement at its
// top or inside an arrow, function or class body. An empty body (`() => {}`) states
// nothing and is allowed. Parsed by tree-sitter on our side, before any of it reaches the
// sandbox, so a refused call never runs at all.
import { parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

const STATEMENT = /(_statement|_declaration)$/;

/** Why the text is not one expression, or undefined when it is. */
export async function refuseJsCall(text: string): Promise<string | undefined> {
  const tree = await parseSource("javascript", `(${text}\n)`);
  try {
    const root = tree.rootNode;
    if (root.hasError) return "not a JavaScript expression (it does not parse as one)";
    const top = root.namedChildren.filter((n) => n !== null && n.type !== "comment");
    if (top.length !== 1 || top[0]?.type !== "expression_statement")
      return "not a JavaScript expression: it holds statements";
    const inner = top[0].namedChildren[0];
    if (!inner) return "not a JavaScript expression";
    return statementIn(inner);
  } finally {
    tree.delete();
  }
}

function statementIn(node: SyntaxNode): string | undefined {
  if (STATEMENT.test(node.type)) return `not a JavaScript expression: it holds a statement (${node.type})`;
  if ((node.type === "statement_block" || node.type === "class_body") && node.namedChildren.some(stated))
    return "not a JavaScript expression: a function or class body with statements";
  for (const child of node.namedChildren) {
    const found = child ? statementIn(child) : undefined;
    if (found) return found;
  }
  return undefined;
}

function stated(node: SyntaxNode | null): boolean {
  return node !== null && node.type !== "comment";
}
