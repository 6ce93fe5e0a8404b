// Repair templates for Python on real syntax trees (tree-sitter): every mutation is a
// replacement of one node's text, generated only at the lines localisation points to,
// and kept only if the mutated file still parses.
import { generateMutations, type AddMutation, type Mutation } from "./mutation.ts";
import { enclosingFunction, firstLine, guardConditions, variablesOf, type ScopeRules } from "./function-scope.ts";
import type { SyntaxNode } from "./tree-sitter.ts";

const COMPARISONS = ["<", "<=", ">", ">=", "==", "!="];
const COMPARISON_PRIOR: Record<string, Record<string, number>> = {
  "<": { "<=": 1, ">": 0.7, ">=": 0.5, "==": 0.4, "!=": 0.4 },
  "<=": { "<": 1, ">=": 0.7, ">": 0.5, "==": 0.4, "!=": 0.4 },
  ">": { ">=": 1, "<": 0.7, "<=": 0.5, "==": 0.4, "!=": 0.4 },
  ">=": { ">": 1, "<=": 0.7, "<": 0.5, "==": 0.4, "!=": 0.4 },
  "==": { "!=": 1, "<=": 0.4, ">=": 0.4, "<": 0.3, ">": 0.3 },
  "!=": { "==": 1, "<": 0.4, ">": 0.4, "<=": 0.3, ">=": 0.3 },
};
const ARITHMETIC: Record<string, Record<string, number>> = {
  "+": { "-": 1, "*": 0.5, "%": 0.2, "//": 0.2 },
  "-": { "+": 1, "*": 0.4, "//": 0.2, "%": 0.2 },
  "*": { "/": 0.6, "+": 0.6, "**": 0.5, "-": 0.4, "//": 0.5 },
  "/": { "//": 0.8, "*": 0.7, "%": 0.4 },
  "//": { "/": 0.8, "%": 0.7, "*": 0.5 },
  "%": { "//": 0.7, "/": 0.4, "*": 0.3 },
  "**": { "*": 0.7 },
};
/** The bit operators swapped among themselves (Kernighan's `n &= n - 1` written `n ^= n - 1`), and the shifts. */
const BITWISE: Record<string, Record<string, number>> = {
  "&": { "|": 1, "^": 0.8 },
  "|": { "&": 1, "^": 0.8 },
  "^": { "&": 1, "|": 0.8 },
  "<<": { ">>": 1 },
  ">>": { "<<": 1 },
};
const FUNCTION_PAIRS: Record<string, string[]> = {
  min: ["max"],
  max: ["min"],
  any: ["all"],
  all: ["any"],
  upper: ["lower"],
  lower: ["upper"],
  isupper: ["islower"],
  islower: ["isupper"],
  startswith: ["endswith"],
  endswith: ["startswith"],
  floor: ["ceil", "round"],
  ceil: ["floor", "round"],
  round: ["int", "floor", "ceil"],
  int: ["round", "float"],
  float: ["int"],
  sorted: ["reversed"],
  reversed: ["sorted"],
  append: ["extend"],
  extend: ["append"],
  index: ["rindex", "find"],
  find: ["rfind", "index"],
  rfind: ["find"],
  remove: ["pop"],
  pop: ["remove"],
  isdigit: ["isalpha", "isalnum"],
  isalpha: ["isdigit", "isalnum"],
  sum: ["len", "max"],
  len: ["sum"],
  abs: ["int"],
  split: ["rsplit"],
};
const NON_COMMUTATIVE = new Set(["-", "/", "//", "%", "**", "<<", ">>"]);
const SIMPLE_STATEMENTS = new Set([
  "expression_statement",
  "assignment",
  "augmented_assignment",
  "return_statement",
  "delete_statement",
  "break_statement",
  "continue_statement",
]);

export function pythonMutations(file: string, source: string, lines: ReadonlySet<number>): Promise<Mutation[]> {
  return generateMutations("python", file, source, lines, mutateNode);
}

type Add = AddMutation;

function mutateNode(node: SyntaxNode, add: Add): void {
  switch (node.type) {
    case "comparison_operator":
      for (const op of node.children) {
        if (!op || !COMPARISONS.includes(op.type)) continue;
        for (const [to, prior] of Object.entries(COMPARISON_PRIOR[op.type] ?? {}))
          add(op, to, "comparison-swap", prior, `\`${op.type}\` → \`${to}\``);
      }
      break;
    case "binary_operator": {
      const op = node.childForFieldName("operator");
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (op)
        for (const [to, prior] of Object.entries(ARITHMETIC[op.type] ?? {}))
          add(op, to, "arithmetic-swap", prior, `\`${op.type}\` → \`${to}\``);
      if (op)
        for (const [to, prior] of Object.entries(BITWISE[op.type] ?? {}))
          add(op, to, "bitwise-swap", prior, `\`${op.type}\` → \`${to}\``);
      if (left && right) {
        add(node, left.text, "drop-operand", 0.6, `\`${node.text}\` → \`${left.text}\``);
        add(node, right.text, "drop-operand", 0.4, `\`${node.text}\` → \`${right.text}\``);
        if (op && NON_COMMUTATIVE.has(op.type))
          add(node, `${right.text} ${op.type} ${left.text}`, "swap-arguments", 0.5, `swap operands of \`${op.type}\``);
      }
      break;
    }
    case "augmented_assignment": {
      const op = node.childForFieldName("operator");
      const base = op?.type.slice(0, -1) ?? "";
      if (op)
        for (const [to, prior] of Object.entries(ARITHMETIC[base] ?? {}))
          add(op, `${to}=`, "arithmetic-swap", prior, `\`${op.type}\` → \`${to}=\``);
      if (op)
        for (const [to, prior] of Object.entries(BITWISE[base] ?? {}))
          add(op, `${to}=`, "bitwise-swap", prior, `\`${op.type}\` → \`${to}=\``);
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (op && left && right)
        add(node, `${left.text} = ${right.text}`, "arithmetic-swap", 0.4, `\`${op.type}\` → \`=\``);
      break;
    }
    case "boolean_operator": {
      const op = node.childForFieldName("operator");
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (op)
        add(
          op,
          op.type === "and" ? "or" : "and",
          "boolean-swap",
          1,
          `\`${op.type}\` → \`${op.type === "and" ? "or" : "and"}\``,
        );
      if (left && right) {
        add(node, left.text, "drop-condition", 0.6, `drop \`${right.text}\``);
        add(node, right.text, "drop-condition", 0.6, `drop \`${left.text}\``);
      }
      break;
    }
    case "not_operator": {
      const argument = node.childForFieldName("argument");
      if (argument) add(node, argument.text, "negate-condition", 0.9, `remove \`not\``);
      break;
    }
    case "unary_operator": {
      const argument = node.childForFieldName("argument");
      const op = node.childForFieldName("operator");
      if (argument && op?.type === "-") add(node, argument.text, "arithmetic-swap", 0.6, "remove unary minus");
      break;
    }
    case "integer": {
      const value = Number(node.text.replaceAll("_", ""));
      if (Number.isSafeInteger(value)) {
        add(node, String(value + 1), "off-by-one", 0.8, `${node.text} → ${value + 1}`);
        if (value > 0 || node.parent?.type !== "unary_operator")
          add(node, String(value - 1), "off-by-one", 0.8, `${node.text} → ${value - 1}`);
      }
      break;
    }
    case "identifier":
      mutateIdentifier(node, add);
      break;
    case "call":
      mutateCall(node, add);
      break;
    case "if_statement":
    case "elif_clause":
    case "while_statement": {
      const condition = node.childForFieldName("condition");
      if (condition) {
        add(condition, `not (${condition.text})`, "negate-condition", 0.7, `negate \`${condition.text}\``);
        add(condition, "True", "drop-condition", 0.3, `condition \`${condition.text}\` → always`);
        if (node.type !== "while_statement")
          add(condition, "False", "drop-condition", 0.2, `condition \`${condition.text}\` → never`);
      }
      break;
    }
    case "conditional_expression": {
      const [body, condition, alternative] = node.namedChildren;
      if (condition) add(condition, `not (${condition.text})`, "negate-condition", 0.7, `negate \`${condition.text}\``);
      if (body && alternative) {
        add(node, body.text, "drop-condition", 0.3, `always \`${body.text}\``);
        add(node, alternative.text, "drop-condition", 0.3, `always \`${alternative.text}\``);
      }
      break;
    }
    case "return_statement": {
      const value = node.namedChildren[0];
      if (value && /comparison_operator|boolean_operator|not_operator|call|identifier/.test(value.type)) {
        add(value, `not (${value.text})`, "return-change", 0.3, `return the negation of \`${value.text}\``);
      }
      break;
    }
    case "subscript": {
      const index = node.childForFieldName("subscript");
      if (index && index.type !== "integer" && index.type !== "slice") {
        add(index, `${index.text} + 1`, "off-by-one", 0.6, `\`[${index.text}]\` → \`[${index.text} + 1]\``);
        add(index, `${index.text} - 1`, "off-by-one", 0.6, `\`[${index.text}]\` → \`[${index.text} - 1]\``);
      }
      break;
    }
    case "slice": {
      mutateSlice(node, add);
      break;
    }
  }
  if (SIMPLE_STATEMENTS.has(node.type) && node.parent?.type === "block") {
    const siblings = node.parent.namedChildren.filter((c) => c && c.type !== "comment");
    if (siblings.length > 1 || node.type !== "return_statement")
      add(
        node,
        "pass",
        "remove-statement",
        node.type === "return_statement" ? 0.2 : 0.5,
        `remove \`${firstLine(node.text)}\``,
      );
    if (node.type !== "return_statement" || siblings.length > 1) guardStatement(node, add);
  }
}

/** Run a statement only when a variable it uses is truthy, or an index it uses is in range. */
function guardStatement(node: SyntaxNode, add: Add): void {
  const indent = " ".repeat(node.startPosition.column);
  const body = node.text
    .split("\n")
    .map((line, i) => (i === 0 ? line : `    ${line}`))
    .join("\n");
  const conditions = guardConditions(node, PYTHON_SCOPE, {
    type: "subscript",
    inRange: (sub) => {
      const value = sub.childForFieldName("value");
      const index = sub.childForFieldName("subscript");
      return value && index && index.type !== "slice" ? `0 <= ${index.text} < len(${value.text})` : undefined;
    },
  });
  for (const condition of conditions)
    add(
      node,
      `if ${condition}:\n${indent}    ${body}`,
      "guard-statement",
      0.3,
      `guard \`${firstLine(node.text)}\` with \`if ${condition}\``,
    );
}

/** Off-by-one on bounds: `x` → `x + 1` / `x - 1` where x bounds a range, slice or index. */
function mutateSlice(node: SyntaxNode, add: Add): void {
  for (const part of node.namedChildren) {
    if (!part || part.type === "integer") continue;
    add(part, `${part.text} + 1`, "off-by-one", 0.6, `\`${part.text}\` → \`${part.text} + 1\``);
    add(part, `${part.text} - 1`, "off-by-one", 0.6, `\`${part.text}\` → \`${part.text} - 1\``);
  }
}

function mutateCall(node: SyntaxNode, add: Add): void {
  const fn = node.childForFieldName("function");
  const args = node.childForFieldName("arguments");
  const name =
    fn?.type === "identifier" ? fn : fn?.type === "attribute" ? fn.childForFieldName("attribute") : undefined;
  if (name)
    for (const to of (Object.hasOwn(FUNCTION_PAIRS, name.text) ? FUNCTION_PAIRS[name.text] : undefined) ?? [])
      add(name, to, "function-swap", 0.7, `\`${name.text}\` → \`${to}\``);
  const positional = (args?.namedChildren ?? []).filter(
    (a): a is SyntaxNode => a !== null && a.type !== "keyword_argument" && a.type !== "comment",
  );
  for (let i = 0; i + 1 < positional.length; i++) {
    const a = positional[i] as SyntaxNode;
    const b = positional[i + 1] as SyntaxNode;
    const source = args?.text ?? "";
    const offset = args?.startIndex ?? 0;
    const swapped =
      source.slice(0, a.startIndex - offset) +
      b.text +
      source.slice(a.endIndex - offset, b.startIndex - offset) +
      a.text +
      source.slice(b.endIndex - offset);
    if (args) add(args, swapped, "swap-arguments", 0.6, `swap \`${a.text}\` and \`${b.text}\``);
  }
  if (fn?.type === "identifier" && fn.text === "range") {
    for (const arg of positional) {
      if (arg.type === "integer") continue; // integers get the literal off-by-one already
      add(arg, `${arg.text} + 1`, "off-by-one", 0.7, `\`${arg.text}\` → \`${arg.text} + 1\``);
      add(arg, `${arg.text} - 1`, "off-by-one", 0.7, `\`${arg.text}\` → \`${arg.text} - 1\``);
    }
  }
  // A bound given as len(x) inside a subscript is a classic off-by-one too.
  if (
    fn?.type === "identifier" &&
    fn.text === "len" &&
    node.parent &&
    /subscript|slice|binary_operator|comparison_operator/.test(node.parent.type)
  ) {
    add(node, `(${node.text} - 1)`, "off-by-one", 0.5, `\`${node.text}\` → \`${node.text} - 1\``);
    add(node, `(${node.text} + 1)`, "off-by-one", 0.4, `\`${node.text}\` → \`${node.text} + 1\``);
  }
}

/** Replace a read of a variable by another variable of the same function. */
function mutateIdentifier(node: SyntaxNode, add: Add): void {
  const parent = node.parent;
  if (!parent) return;
  if (parent.type === "call" && parent.childForFieldName("function")?.id === node.id) return;
  if (parent.type === "attribute" && parent.childForFieldName("attribute")?.id === node.id) return;
  if (parent.type === "keyword_argument" && parent.childForFieldName("name")?.id === node.id) return;
  if (
    /parameters|default_parameter|typed_parameter|function_definition|import|dotted_name|aliased_import/.test(
      parent.type,
    )
  )
    return;
  if (parent.type === "assignment" && parent.childForFieldName("left")?.id === node.id) return;
  if (/for_statement|for_in_clause/.test(parent.type) && parent.childForFieldName("left")?.id === node.id) return;
  if (/pattern_list|tuple_pattern/.test(parent.type)) return;
  const scope = enclosingFunction(node, PYTHON_SCOPE);
  if (!scope) return;
  for (const other of variablesOf(scope, PYTHON_SCOPE)) {
    if (other !== node.text) add(node, other, "variable-replace", 0.5, `\`${node.text}\` → \`${other}\``);
  }
}

/** Functions and lambdas, their parameters, and the names assigned or bound by a for loop. */
const PYTHON_SCOPE: ScopeRules = {
  functions: new Set(["function_definition", "lambda"]),
  parameterNames: (p) => {
    const id = p.type === "identifier" ? p : p.namedChildren.find((c) => c?.type === "identifier");
    return id ? [id.text] : [];
  },
  boundNames: (n) => {
    if (!/^(assignment|augmented_assignment|for_statement|for_in_clause)$/.test(n.type)) return [];
    const target = n.childForFieldName("left");
    if (target?.type === "identifier") return [target.text];
    if (target?.type !== "pattern_list" && target?.type !== "tuple_pattern") return [];
    return target.namedChildren.flatMap((c) => (c?.type === "identifier" ? [c.text] : []));
  },
};
