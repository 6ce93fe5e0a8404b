// A candidate edit from a repair template: replace one span of one file; and what every
// language's generator does with its candidates (dedupe, keep only what still parses).
import { parseSource, type Grammar, type SyntaxNode } from "./tree-sitter.ts";

export type TemplateFamily =
  | "comparison-swap"
  | "arithmetic-swap"
  | "bitwise-swap"
  | "boolean-swap"
  | "negate-condition"
  | "drop-condition"
  | "off-by-one"
  | "swap-arguments"
  | "variable-replace"
  | "function-swap"
  | "drop-operand"
  | "return-change"
  | "remove-statement"
  | "guard-statement"
  | "square-operand";

export type Mutation = {
  file: string;
  /** 1-based line where the mutated node starts. */
  line: number;
  start: number;
  end: number;
  replacement: string;
  family: TemplateFamily;
  /** How often this kind of edit is the right one, relative to the others (0..1]. */
  prior: number;
  description: string;
};

export function applyMutation(source: string, m: Pick<Mutation, "start" | "end" | "replacement">): string {
  return source.slice(0, m.start) + m.replacement + source.slice(m.end);
}

/** How a language's templates propose one edit: replace `node`'s text. */
export type AddMutation = (
  node: SyntaxNode,
  replacement: string,
  family: TemplateFamily,
  prior: number,
  description: string,
) => void;

/** Walks the syntax tree, lets `mutateNode` propose edits at the given lines, and keeps the distinct ones that still parse. */
export async function generateMutations(
  grammar: Grammar,
  file: string,
  source: string,
  lines: ReadonlySet<number>,
  mutateNode: (node: SyntaxNode, add: AddMutation) => void,
): Promise<Mutation[]> {
  const tree = await parseSource(grammar, source);
  const out: Mutation[] = [];
  const add: AddMutation = (node, replacement, family, prior, description) => {
    if (replacement === node.text) return;
    out.push({
      file,
      line: node.startPosition.row + 1,
      start: node.startIndex,
      end: node.endIndex,
      replacement,
      family,
      prior,
      description,
    });
  };
  const visit = (node: SyntaxNode) => {
    if (lines.has(node.startPosition.row + 1)) mutateNode(node, add);
    for (const child of node.namedChildren) if (child) visit(child);
  };
  visit(tree.rootNode);
  tree.delete();
  return keepParsable(grammar, source, dedupe(out));
}

export function dedupe(mutations: Mutation[]): Mutation[] {
  const seen = new Set<string>();
  return mutations.filter((m) => {
    const key = `${m.start}:${m.end}:${m.replacement}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export async function keepParsable(grammar: Grammar, source: string, mutations: Mutation[]): Promise<Mutation[]> {
  const kept: Mutation[] = [];
  for (const m of mutations) {
    const tree = await parseSource(grammar, applyMutation(source, m));
    if (!tree.rootNode.hasError) kept.push(m);
    tree.delete();
  }
  return kept;
}
