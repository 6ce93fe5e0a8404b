// Repair templates for JavaScript and TypeScript on real syntax trees (tree-sitter's
// grammars), the same families as for Python: each mutation replaces one node's text at
// a suspicious line and is kept only if the file still parses.
import { generateMutations, type AddMutation, type Mutation } from "./mutation.ts";
import { enclosingFunction, guardConditions, variablesOf, type ScopeRules } from "./function-scope.ts";
import type { Grammar, SyntaxNode } from "./tree-sitter.ts";

const COMPARISON: Record<string, Record<string, number>> = {
  "<": { "<=": 1, ">": 0.7, ">=": 0.5 },
  "<=": { "<": 1, ">=": 0.7, ">": 0.5 },
  ">": { ">=": 1, "<": 0.7, "<=": 0.5 },
  ">=": { ">": 1, "<=": 0.7, "<": 0.5 },
  "===": { "!==": 1, "<=": 0.3, ">=": 0.3 },
  "!==": { "===": 1 },
  "==": { "!=": 1, "===": 0.3 },
  "!=": { "==": 1, "!==": 0.3 },
};
const ARITHMETIC: Record<string, Record<string, number>> = {
  "+": { "-": 1, "*": 0.5 },
  "-": { "+": 1, "*": 0.4 },
  "*": { "/": 0.6, "+": 0.6, "**": 0.4, "-": 0.4 },
  "/": { "*": 0.7, "%": 0.4 },
  "%": { "/": 0.5, "*": 0.3 },
  "**": { "*": 0.7 },
};
/** The bit operators swapped among themselves (`n &= n - 1` written `n ^= n - 1`), and the shifts. */
const BITWISE: Record<string, Record<string, number>> = {
  "&": { "|": 1, "^": 0.8 },
  "|": { "&": 1, "^": 0.8 },
  "^": { "&": 1, "|": 0.8 },
  "<<": { ">>": 1 },
  ">>": { ">>>": 0.8, "<<": 0.7 },
  ">>>": { ">>": 0.8 },
};
const LOGICAL: Record<string, string> = { "&&": "||", "||": "&&", "??": "||" };
const METHOD_PAIRS: Record<string, string[]> = {
  min: ["max"],
  max: ["min"],
  floor: ["ceil", "round"],
  ceil: ["floor", "round"],
  round: ["floor", "ceil"],
  some: ["every"],
  every: ["some"],
  toUpperCase: ["toLowerCase"],
  toLowerCase: ["toUpperCase"],
  startsWith: ["endsWith"],
  endsWith: ["startsWith"],
  indexOf: ["lastIndexOf", "includes"],
  lastIndexOf: ["indexOf"],
  push: ["unshift"],
  unshift: ["push"],
  pop: ["shift"],
  shift: ["pop"],
  slice: ["splice"],
  filter: ["find"],
  find: ["filter"],
  trimStart: ["trimEnd", "trim"],
  trimEnd: ["trimStart", "trim"],
};
const NON_COMMUTATIVE = new Set(["-", "/", "%", "**"]);
const STATEMENTS = new Set([
  "expression_statement",
  "return_statement",
  "break_statement",
  "continue_statement",
  "lexical_declaration",
  "variable_declaration",
]);

type Add = AddMutation;

export function jsMutations(
  file: string,
  source: string,
  lines: ReadonlySet<number>,
  grammar: Grammar = "javascript",
): Promise<Mutation[]> {
  return generateMutations(grammar, file, source, lines, mutateNode);
}

function mutateNode(node: SyntaxNode, add: Add): void {
  switch (node.type) {
    case "binary_expression": {
      const op = node.childForFieldName("operator");
      const left = node.childForFieldName("left");
      const right = node.childForFieldName("right");
      if (!op || !left || !right) break;
      for (const [to, prior] of Object.entries(COMPARISON[op.type] ?? {}))
        add(op, to, "comparison-swap", prior, `\`${op.type}\` → \`${to}\``);
      for (const [to, prior] of Object.entries(ARITHMETIC[op.type] ?? {}))
        add(op, to, "arithmetic-swap", prior, `\`${op.type}\` → \`${to}\``);
      for (const [to, prior] of Object.entries(BITWISE[op.type] ?? {}))
        add(op, to, "bitwise-swap", prior, `\`${op.type}\` → \`${to}\``);
      const logical = LOGICAL[op.type];
      if (logical) {
        add(op, logical, "boolean-swap", 1, `\`${op.type}\` → \`${logical}\``);
        add(node, left.text, "drop-condition", 0.6, `drop \`${right.text}\``);
        add(node, right.text, "drop-condition", 0.6, `drop \`${left.text}\``);
      } else if (ARITHMETIC[op.type]) {
        add(node, left.text, "drop-operand", 0.6, `\`${node.text}\` → \`${left.text}\``);
        add(node, right.text, "drop-operand", 0.4, `\`${node.text}\` → \`${right.text}\``);
        if (NON_COMMUTATIVE.has(op.type))
          add(node, `${right.text} ${op.type} ${left.text}`, "swap-arguments", 0.5, `swap operands of \`${op.type}\``);
      }
      break;
    }
    case "augmented_assignment_expression": {
      const op = node.childForFieldName("operator");
      const base = op?.type.slice(0, -1) ?? "";
      if (op)
        for (const [to, prior] of Object.entries(ARITHMETIC[base] ?? {}))
          add(op, `${to}=`, "arithmetic-swap", prior, `\`${op.type}\` → \`${to}=\``);
      if (op)
        for (const [to, prior] of Object.entries(BITWISE[base] ?? {}))
          add(op, `${to}=`, "bitwise-swap", prior, `\`${op.type}\` → \`${to}=\``);
      break;
    }
    case "update_expression": {
      const text = node.text;
      if (text.includes("++")) add(node, text.replace("++", "--"), "arithmetic-swap", 0.8, "`++` → `--`");
      else if (text.includes("--")) add(node, text.replace("--", "++"), "arithmetic-swap", 0.8, "`--` → `++`");
      break;
    }
    case "unary_expression": {
      const op = node.childForFieldName("operator");
      const argument = node.childForFieldName("argument");
      if (op?.type === "!" && argument) add(node, argument.text, "negate-condition", 0.9, "remove `!`");
      if (op?.type === "-" && argument) add(node, argument.text, "arithmetic-swap", 0.6, "remove unary minus");
      break;
    }
    case "number": {
      const value = Number(node.text);
      if (Number.isSafeInteger(value)) {
        add(node, String(value + 1), "off-by-one", 0.8, `${node.text} → ${value + 1}`);
        add(node, String(value - 1), "off-by-one", 0.8, `${node.text} → ${value - 1}`);
      }
      break;
    }
    case "true":
      add(node, "false", "return-change", 0.4, "`true` → `false`");
      break;
    case "false":
      add(node, "true", "return-change", 0.4, "`false` → `true`");
      break;
    case "identifier":
      mutateIdentifier(node, add);
      break;
    case "call_expression":
      mutateCall(node, add);
      break;
    case "subscript_expression": {
      const index = node.childForFieldName("index");
      if (index && index.type !== "number" && index.type !== "string") {
        add(index, `${index.text} + 1`, "off-by-one", 0.6, `\`[${index.text}]\` → \`[${index.text} + 1]\``);
        add(index, `${index.text} - 1`, "off-by-one", 0.6, `\`[${index.text}]\` → \`[${index.text} - 1]\``);
      }
      break;
    }
    case "if_statement":
    case "while_statement": {
      const condition = node.childForFieldName("condition");
      const inner = condition?.type === "parenthesized_expression" ? condition.namedChildren[0] : condition;
      if (inner) {
        add(inner, `!(${inner.text})`, "negate-condition", 0.7, `negate \`${inner.text}\``);
        add(inner, "true", "drop-condition", 0.3, `condition \`${inner.text}\` → always`);
        if (node.type === "if_statement")
          add(inner, "false", "drop-condition", 0.2, `condition \`${inner.text}\` → never`);
      }
      break;
    }
    case "for_statement": {
      const condition = node.childForFieldName("condition");
      const test = condition?.type === "expression_statement" ? condition.namedChildren[0] : condition;
      if (test?.type === "binary_expression") {
        const op = test.childForFieldName("operator");
        if (op)
          for (const [to, prior] of Object.entries(COMPARISON[op.type] ?? {}))
            add(op, to, "off-by-one", prior * 0.9, `loop bound \`${op.type}\` → \`${to}\``);
      }
      break;
    }
    case "ternary_expression": {
      const condition = node.childForFieldName("condition");
      const consequence = node.childForFieldName("consequence");
      const alternative = node.childForFieldName("alternative");
      if (condition) add(condition, `!(${condition.text})`, "negate-condition", 0.7, `negate \`${condition.text}\``);
      if (consequence && alternative) {
        add(node, consequence.text, "drop-condition", 0.3, `always \`${consequence.text}\``);
        add(node, alternative.text, "drop-condition", 0.3, `always \`${alternative.text}\``);
      }
      break;
    }
    case "return_statement": {
      const value = node.namedChildren[0];
      if (value && /binary_expression|unary_expression|call_expression|identifier/.test(value.type))
        add(value, `!(${value.text})`, "return-change", 0.3, `return the negation of \`${value.text}\``);
      break;
    }
  }
  if (STATEMENTS.has(node.type) && node.parent?.type === "statement_block") {
    const siblings = node.parent.namedChildren.filter((c) => c && c.type !== "comment");
    if (
      node.type !== "lexical_declaration" &&
      node.type !== "variable_declaration" &&
      (siblings.length > 1 || node.type !== "return_statement")
    ) {
      add(
        node,
        ";",
        "remove-statement",
        node.type === "return_statement" ? 0.2 : 0.5,
        `remove \`${node.text.split("\n")[0]?.slice(0, 60) ?? ""}\``,
      );
      guardStatement(node, add);
    }
  }
}

/** Run a statement only when a variable it uses is truthy, or an index it uses is in range. */
function guardStatement(node: SyntaxNode, add: Add): void {
  const conditions = guardConditions(node, JS_SCOPE, {
    type: "subscript_expression",
    inRange: (sub) => {
      const object = sub.childForFieldName("object");
      const index = sub.childForFieldName("index");
      return object && index && index.type !== "string"
        ? `${index.text} >= 0 && ${index.text} < ${object.text}.length`
        : undefined;
    },
  });
  for (const condition of conditions)
    add(
      node,
      `if (${condition}) { ${node.text} }`,
      "guard-statement",
      0.3,
      `guard \`${node.text.split("\n")[0]?.slice(0, 60) ?? ""}\` with \`if (${condition})\``,
    );
}

function mutateCall(node: SyntaxNode, add: Add): void {
  const fn = node.childForFieldName("function");
  const args = node.childForFieldName("arguments");
  const name =
    fn?.type === "identifier" ? fn : fn?.type === "member_expression" ? fn.childForFieldName("property") : undefined;
  if (name)
    for (const to of (Object.hasOwn(METHOD_PAIRS, name.text) ? METHOD_PAIRS[name.text] : undefined) ?? [])
      add(name, to, "function-swap", 0.7, `\`${name.text}\` → \`${to}\``);
  const positional = (args?.namedChildren ?? []).filter((a): a is SyntaxNode => a !== null && a.type !== "comment");
  for (let i = 0; args && i + 1 < positional.length; i++) {
    const a = positional[i] as SyntaxNode;
    const b = positional[i + 1] as SyntaxNode;
    const text = args.text;
    const offset = args.startIndex;
    const swapped =
      text.slice(0, a.startIndex - offset) +
      b.text +
      text.slice(a.endIndex - offset, b.startIndex - offset) +
      a.text +
      text.slice(b.endIndex - offset);
    add(args, swapped, "swap-arguments", 0.6, `swap \`${a.text}\` and \`${b.text}\``);
  }
  if (name && /^(slice|substring|substr|splice)$/.test(name.text)) {
    for (const arg of positional) {
      if (arg.type === "number") continue;
      add(arg, `${arg.text} + 1`, "off-by-one", 0.6, `\`${arg.text}\` → \`${arg.text} + 1\``);
      add(arg, `${arg.text} - 1`, "off-by-one", 0.6, `\`${arg.text}\` → \`${arg.text} - 1\``);
    }
  }
}

function mutateIdentifier(node: SyntaxNode, add: Add): void {
  const parent = node.parent;
  if (!parent || node.text === "undefined") return;
  if (parent.type === "call_expression" && parent.childForFieldName("function")?.id === node.id) return;
  if (
    /formal_parameters|required_parameter|optional_parameter|function_declaration|import|export_specifier|method_definition|class_declaration|shorthand_property_identifier_pattern/.test(
      parent.type,
    )
  )
    return;
  if (parent.type === "variable_declarator" && parent.childForFieldName("name")?.id === node.id) return;
  if (parent.type === "assignment_expression" && parent.childForFieldName("left")?.id === node.id) return;
  const scope = enclosingFunction(node, JS_SCOPE);
  if (!scope) return;
  // Only reads of the function's own variables: globals and imports (Math, JSON) stay.
  const variables = variablesOf(scope, JS_SCOPE);
  if (!variables.includes(node.text)) return;
  for (const other of variables)
    if (other !== node.text) add(node, other, "variable-replace", 0.5, `\`${node.text}\` → \`${other}\``);
}

/** Functions, their parameters (plain, typed, defaulted) and declared variables. */
const JS_SCOPE: ScopeRules = {
  functions: new Set([
    "function_declaration",
    "function_expression",
    "arrow_function",
    "method_definition",
    "function",
  ]),
  parameterNames: function names(n: SyntaxNode): string[] {
    if (n.type === "identifier") return [n.text];
    if (!/required_parameter|optional_parameter|assignment_pattern/.test(n.type)) return [];
    const inner = n.childForFieldName("pattern") ?? n.childForFieldName("left") ?? n.namedChildren[0];
    return inner ? names(inner) : [];
  },
  boundNames: (n) => {
    const name = n.type === "variable_declarator" ? n.childForFieldName("name") : null;
    return name?.type === "identifier" ? [name.text] : [];
  },
};
