// Top-level symbols of a source file (functions, classes and their methods) with their
// line spans, from the real syntax tree.
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

export type CodeSymbol = { name: string; kind: "function" | "class" | "method"; startLine: number; endLine: number; text: string };

export async function symbolsOf(path: string, source: string): Promise<CodeSymbol[]> {
  const grammar = grammarForFile(path);
  if (!grammar) return [];
  const tree = await parseSource(grammar, source);
  const out: CodeSymbol[] = [];
  const add = (node: SyntaxNode, kind: CodeSymbol["kind"], name: string | undefined) => {
    if (name) out.push({ name, kind, startLine: node.startPosition.row + 1, endLine: node.endPosition.row + 1, text: node.text });
  };
  const visit = (node: SyntaxNode, inClass: string | undefined) => {
    for (const child of node.namedChildren) {
      if (!child) continue;
      const target = child.type === "decorated_definition" ? child.childForFieldName("definition") ?? child : child.type === "export_statement" ? child.childForFieldName("declaration") ?? child : child;
      const name = target.childForFieldName("name")?.text;
      if (/^(function_definition|function_declaration|method_definition|generator_function_declaration)$/.test(target.type)) add(target, inClass ? "method" : "function", inClass ? `${inClass}.${name}` : name);
      else if (/^class_(definition|declaration)$/.test(target.type)) {
        add(target, "class", name);
        const body = target.childForFieldName("body");
        if (body) visit(body, name);
      } else if (target.type === "lexical_declaration") {
        for (const d of target.namedChildren) {
          const value = d?.childForFieldName("value");
          if (d && value && /arrow_function|function_expression/.test(value.type)) add(d, "function", d.childForFieldName("name")?.text);
        }
      }
    }
  };
  visit(tree.rootNode, undefined);
  tree.delete();
  return out;
}
