// A file's top-level imports with the names each binds, so a symbol shown alone can be
// shown with the imports it uses.
import { grammarForFile, parseSource, type SyntaxNode } from "../template/tree-sitter.ts";

/** `module`: what the import names (`.iterutils`, `boltons.iterutils`, `./util`), to resolve a call through it. */
export type ImportLines = { startLine: number; endLine: number; names: string[]; module?: string };

export async function importLinesOf(path: string, source: string): Promise<ImportLines[]> {
  const grammar = grammarForFile(path);
  if (!grammar) return [];
  const tree = await parseSource(grammar, source);
  try {
    const out: ImportLines[] = [];
    for (const node of tree.rootNode.namedChildren) {
      if (!node) continue;
      const names = boundNames(node);
      if (!names) continue;
      const module = moduleOf(node);
      out.push({
        startLine: node.startPosition.row + 1,
        endLine: node.endPosition.row + 1,
        names,
        ...(module ? { module } : {}),
      });
    }
    return out;
  } finally {
    tree.delete();
  }
}

function boundNames(node: SyntaxNode): string[] | undefined {
  if (
    node.type === "import_statement" ||
    node.type === "import_from_statement" ||
    node.type === "future_import_statement"
  ) {
    // Python `from m import a, b as c` binds a and c (b listed too: harmless); JS `import x, { y } from "m"`.
    const source = node.childForFieldName("module_name") ?? node.childForFieldName("source");
    return identifiers(node)
      .filter((n) => !source || !(n.startIndex >= source.startIndex && n.endIndex <= source.endIndex))
      .map((n) => n.text);
  }
  if (node.type === "lexical_declaration" || node.type === "variable_declaration") {
    // `const x = require("m")`
    if (!/\brequire\s*\(/.test(node.text) || node.text.split("\n").length > 6) return undefined;
    return node.namedChildren.flatMap((d) =>
      d?.childForFieldName("name") ? identifiers(d.childForFieldName("name") as SyntaxNode).map((n) => n.text) : [],
    );
  }
  return undefined;
}

function moduleOf(node: SyntaxNode): string | undefined {
  if (node.type === "import_from_statement") return node.childForFieldName("module_name")?.text;
  if (node.type === "import_statement") {
    const first = node.namedChildren[0];
    if (!first) return undefined;
    // `import a.b` or `import a.b as c` (Python), `import x from "m"` (JS: the source field).
    const source = node.childForFieldName("source");
    if (source) return source.text.replace(/^["'`]|["'`]$/g, "");
    return (first.type === "aliased_import" ? first.childForFieldName("name") : first)?.text;
  }
  const require = /\brequire\s*\(\s*["'`]([^"'`]+)["'`]/.exec(node.text);
  return require?.[1];
}

function identifiers(node: SyntaxNode): SyntaxNode[] {
  if (/^(identifier|property_identifier|shorthand_property_identifier_pattern)$/.test(node.type)) return [node];
  return node.namedChildren.flatMap((c) => (c ? identifiers(c) : []));
}
