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

/** A value that is a function: `function (…) {…}`, `function name(…) {…}`, `(…) => …`. */
const FUNCTION_VALUE = /^(arrow_function|function_expression|function|generator_function)$/;

export async function symbolsOf(path: string, source: string): Promise<CodeSymbol[]> {
  const grammar = grammarForFile(path);
  if (!grammar) return [];
  const tree = await parseSource(grammar, source);
  const out: CodeSymbol[] = [];
  const add = (node: SyntaxNode, outer: SyntaxNode, kind: CodeSymbol["kind"], name: string | undefined) => {
    if (!name) return;
    const startLine = node.startPosition.row + 1;
    const body =
      node.childForFieldName("body") ??
      node.childForFieldName("value")?.childForFieldName("body") ??
      node.childForFieldName("right")?.childForFieldName("body");
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
      } else if (target.type === "lexical_declaration" || target.type === "variable_declaration") {
        // `const f = () => …`, and `var parseValues = function parseQueryStringValues(…) {…}` (qs, pre-ES2015 code).
        for (const d of target.namedChildren) {
          const value = d?.childForFieldName("value");
          if (d && value && FUNCTION_VALUE.test(value.type))
            add(d, child, "function", d.childForFieldName("name")?.text);
        }
      } else if (!inClass && target.type === "expression_statement") {
        // CommonJS: `module.exports = function (args, opts) {…}` (minimist), `exports.parse = …`,
        // `Type.prototype.method = function …`: named as assigned.
        const assignment = target.namedChildren[0];
        const right = assignment?.type === "assignment_expression" ? assignment.childForFieldName("right") : null;
        const left = assignment?.childForFieldName("left");
        if (
          assignment &&
          right &&
          left &&
          FUNCTION_VALUE.test(right.type) &&
          /^(identifier|member_expression)$/.test(left.type)
        )
          add(assignment, child, "function", left.text);
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
