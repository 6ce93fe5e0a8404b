// A function's own variables on a tree-sitter tree, for the repair templates that swap one
// variable for another or guard a statement by one: the enclosing function, its parameters
// and the names it assigns (not those of functions nested in it). The grammar-specific part
// is a small set of rules; the walk and its cache are shared by Python and JavaScript.
import type { SyntaxNode } from "./tree-sitter.ts";

export type ScopeRules = {
  /** Node types that open a function scope. */
  functions: ReadonlySet<string>;
  /** The names a parameter node binds. */
  parameterNames: (parameter: SyntaxNode) => string[];
  /** The names a node inside the function binds (an assignment's target, a declarator's name). */
  boundNames: (node: SyntaxNode) => string[];
};

export function enclosingFunction(node: SyntaxNode, rules: ScopeRules): SyntaxNode | undefined {
  let current: SyntaxNode | null = node.parent;
  while (current && !rules.functions.has(current.type)) current = current.parent;
  return current ?? undefined;
}

const cache = new WeakMap<ScopeRules, WeakMap<object, string[]>>();

/** The function's parameters, then the names assigned in its body, in order of first appearance. */
export function variablesOf(fn: SyntaxNode, rules: ScopeRules): string[] {
  let byFunction = cache.get(rules);
  if (!byFunction) cache.set(rules, (byFunction = new WeakMap()));
  const cached = byFunction.get(fn);
  if (cached) return cached;
  const names = new Set<string>();
  const params = fn.childForFieldName("parameters") ?? fn.childForFieldName("parameter");
  if (params?.type === "identifier") names.add(params.text);
  else for (const p of params?.namedChildren ?? []) if (p) for (const name of rules.parameterNames(p)) names.add(name);
  const walk = (n: SyntaxNode) => {
    if (n.id !== fn.id && rules.functions.has(n.type)) return;
    for (const name of rules.boundNames(n)) names.add(name);
    for (const c of n.namedChildren) if (c) walk(c);
  };
  walk(fn);
  const list = [...names];
  byFunction.set(fn, list);
  return list;
}

/** The conditions that would guard a statement: the function's variables it reads, and its subscripts' bounds. */
export function guardConditions(
  node: SyntaxNode,
  rules: ScopeRules,
  subscripts: { type: string; inRange: (sub: SyntaxNode) => string | undefined },
): string[] {
  const scope = enclosingFunction(node, rules);
  if (!scope) return [];
  const locals = new Set(variablesOf(scope, rules));
  const conditions = new Set<string>();
  for (const id of node.descendantsOfType("identifier")) if (id && locals.has(id.text)) conditions.add(id.text);
  for (const sub of node.descendantsOfType(subscripts.type)) {
    const condition = sub && subscripts.inRange(sub);
    if (condition) conditions.add(condition);
  }
  return [...conditions];
}

/** A statement's first line, cut to 60 characters, for a mutation's description. */
export function firstLine(text: string): string {
  const line = text.split("\n")[0] ?? "";
  return line.length > 60 ? `${line.slice(0, 57)}...` : line;
}
