// A candidate edit from a repair template: replace one span of one file; and what every
// language's generator does with its candidates (dedupe, keep only what still parses).
import { parseSource, type Grammar } from "./tree-sitter.ts";

export type TemplateFamily =
  | "comparison-swap"
  | "arithmetic-swap"
  | "boolean-swap"
  | "negate-condition"
  | "drop-condition"
  | "off-by-one"
  | "swap-arguments"
  | "variable-replace"
  | "function-swap"
  | "drop-operand"
  | "return-change"
  | "remove-statement";

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
