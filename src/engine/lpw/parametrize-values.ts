// A parametrized pytest test's inputs by its id: `test_wrap[zero]` → `width=0, expected="x"`,
// read from its `@pytest.mark.parametrize(...)` on the real syntax tree (explicit ids=,
// pytest.param(..., id=...), or the ids pytest derives from plain values).
import { parsePython, type SyntaxNode } from "../template/tree-sitter.ts";

/** Parameter text by id suffix (`zero` → `width=0, expected="alpha beta"`), from the single parametrize decorator of a test's source. */
export async function parametrizeValues(testSourceText: string): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  const tree = await parsePython(testSourceText);
  try {
    const decorators = tree.rootNode
      .descendantsOfType("decorator")
      .filter((d): d is SyntaxNode => Boolean(d && /parametrize\s*\(/.test(d.text)));
    if (decorators.length !== 1) return out;
    const call = (decorators[0] as SyntaxNode).namedChildren.find((c) => c?.type === "call");
    const args = call?.childForFieldName("arguments")?.namedChildren.filter((a): a is SyntaxNode => Boolean(a)) ?? [];
    const positional = args.filter((a) => a.type !== "keyword_argument");
    const keyword = (name: string) =>
      args
        .find((a) => a.type === "keyword_argument" && a.childForFieldName("name")?.text === name)
        ?.childForFieldName("value");
    const namesNode = positional[0] ?? keyword("argnames");
    const valuesNode = positional[1] ?? keyword("argvalues");
    if (!namesNode || !valuesNode || !/^(list|tuple)$/.test(valuesNode.type)) return out;
    const names = argNames(namesNode);
    const explicitIds = keyword("ids");
    const ids =
      explicitIds && /^(list|tuple)$/.test(explicitIds.type)
        ? explicitIds.namedChildren.map((n) => (n ? literal(n) : undefined))
        : [];
    valuesNode.namedChildren.forEach((entry, index) => {
      if (!entry) return;
      let values: SyntaxNode[];
      let id: string | undefined = ids[index];
      if (entry.type === "call" && /(^|\.)param$/.test(entry.childForFieldName("function")?.text ?? "")) {
        const pArgs =
          entry.childForFieldName("arguments")?.namedChildren.filter((a): a is SyntaxNode => Boolean(a)) ?? [];
        values = pArgs.filter((a) => a.type !== "keyword_argument");
        const idArg = pArgs
          .find((a) => a.type === "keyword_argument" && a.childForFieldName("name")?.text === "id")
          ?.childForFieldName("value");
        id = idArg ? literal(idArg) : id;
      } else {
        values =
          names.length > 1 && (entry.type === "tuple" || entry.type === "list")
            ? entry.namedChildren.filter((v): v is SyntaxNode => Boolean(v))
            : [entry];
      }
      id ??= values.map((v, i) => autoId(v, names[i] ?? "arg", index)).join("-");
      out.set(id, values.map((v, i) => `${names[i] ?? `arg${i}`}=${v.text}`).join(", "));
    });
    return out;
  } finally {
    tree.delete();
  }
}

function argNames(node: SyntaxNode): string[] {
  if (node.type === "string")
    return (literal(node) ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean);
  return node.namedChildren.flatMap((n) => (n?.type === "string" ? [literal(n) ?? ""] : []));
}

/** A string literal's content, or a number, True, False or None as written. */
function literal(node: SyntaxNode): string | undefined {
  if (node.type === "string")
    return node.namedChildren
      .filter((c) => c && c.type !== "string_start" && c.type !== "string_end")
      .map((c) => c?.text ?? "")
      .join("");
  if (/^(integer|float|true|false|none)$/.test(node.type)) return node.text;
  if (node.type === "unary_operator" && /^-\s*[\d.]/.test(node.text)) return node.text.replace(/\s+/g, "");
  return undefined;
}

/** The id pytest gives a value it can show (numbers, strings, booleans, None), else the argument name and index. */
function autoId(node: SyntaxNode, name: string, index: number): string {
  return literal(node) ?? `${name}${index}`;
}
