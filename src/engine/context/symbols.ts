// Top-level symbols of a source file (functions, classes and their methods) with their
// line spans, from the real syntax tree.
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

/**
 * `startLine`..`endLine`: the definition; `outerStart`: its first decorator or `export`
 * (the same as startLine without); `headerEnd`: the last line of its signature.
 */
export type CodeSymbol = {
  name: string;
  kind: "function" | "class" | "method";
  startLine: number;
  endLine: number;
  outerStart: number;
  headerEnd: number;
  text: string;
};

export async function symbolsOf(path: string, source: string): Promise<CodeSymbol[]> {
  const grammar = grammarForFile(path);
  if (!grammar) return [];
  const tree = await parseSource(grammar, source);
  const out: CodeSymbol[] = [];
  const add = (node: SyntaxNode, outer: SyntaxNode, kind: CodeSymbol["kind"], name: string | undefined) => {
    if (!name) return;
    const startLine = node.startPosition.row + 1;
    const body = node.childForFieldName("body") ?? node.childForFieldName("value")?.childForFieldName("body");
    // Python's body starts on the line after the colon; a JS body's brace ends the signature line.
    const bodyRow = body ? body.startPosition.row : node.startPosition.row;
    const headerEnd = Math.max(startLine, grammar === "python" ? bodyRow : bodyRow + 1);
    out.push({
      name,
      kind,
      startLine,
      endLine: node.endPosition.row + 1,
      outerStart: outer.startPosition.row + 1,
      headerEnd,
      text: node.text,
    });
  };
  const visit = (node: SyntaxNode, inClass: string | undefined) => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      const target =
        child.type === "decorated_definition"
          ? (child.childForFieldName("definition") ?? child)
          : child.type === "export_statement"
            ? (child.childForFieldName("declaration") ?? child)
            : child;
      const name = target.childForFieldName("name")?.text;
      if (
        /^(function_definition|function_declaration|method_definition|generator_function_declaration)$/.test(
          target.type,
        )
      )
        add(target, child, inClass ? "method" : "function", inClass ? `${inClass}.${name}` : name);
      else if (/^class_(definition|declaration)$/.test(target.type)) {
        add(target, child, "class", name);
        const body = target.childForFieldName("body");
        if (body) visit(body, name);
      } else if (target.type === "lexical_declaration") {
        for (const d of target.namedChildren) {
          const value = d?.childForFieldName("value");
          if (d && value && /arrow_function|function_expression/.test(value.type))
            add(d, child, "function", d.childForFieldName("name")?.text);
        }
      }
    }
  };
  visit(tree.rootNode, undefined);
  tree.delete();
  return out;
}

/** A symbol's last name component: `Table.render` → `render`. */
export function shortName(symbol: CodeSymbol): string {
  return symbol.name.split(".").at(-1) ?? symbol.name;
}
