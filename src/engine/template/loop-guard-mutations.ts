// The loop-guard family: a `while` condition that measures the wrong quantity, a name that
// should be squared (trial division's `i * i <= n` written `i <= n`; Newton's square root
// testing `abs(x - approx)` instead of `abs(x - approx ** 2)`, which never ends). Each plain
// name the guard compares or computes with becomes `name ** 2` (Python and JavaScript alike).
import { generateMutations, type AddMutation, type Mutation } from "./mutation.ts";
import type { Grammar, SyntaxNode } from "./tree-sitter.ts";

/** Prior of a squared operand; ranked first when the unchanged code's failing tests never ended (`looping`). */
const PRIOR = 0.4;
const LOOPING_PRIOR = 1.5;
/** Nodes whose direct operands are values a guard computes with. */
const OPERATIONS = new Set(["binary_operator", "binary_expression", "comparison_operator", "unary_operator"]);
const WRAPPERS = new Set(["parenthesized_expression", "argument_list", "arguments"]);

export function loopGuardMutations(
  grammar: Grammar,
  file: string,
  source: string,
  lines: ReadonlySet<number>,
  options: { looping?: boolean } = {},
): Promise<Mutation[]> {
  const prior = options.looping ? LOOPING_PRIOR : PRIOR;
  return generateMutations(grammar, file, source, lines, (node, add) => {
    if (node.type !== "while_statement") return;
    const condition = node.childForFieldName("condition");
    if (condition) squareOperands(condition, add, prior);
  });
}

function squareOperands(node: SyntaxNode, add: AddMutation, prior: number): void {
  if (node.type === "identifier" && isOperand(node)) {
    add(
      node,
      `${node.text} ** 2`,
      "square-operand",
      prior,
      `\`${node.text}\` → \`${node.text} ** 2\` in the loop guard`,
    );
    return;
  }
  // A lambda or function in the guard has a scope of its own.
  if (node.type === "lambda" || node.type === "arrow_function" || node.type === "function_expression") return;
  for (const child of node.namedChildren) if (child) squareOperands(child, add, prior);
}

/** A name used as a number: an operand of an arithmetic or comparison operator, or the sole argument of a call that is one (`abs(d)`), through parentheses. */
function isOperand(node: SyntaxNode): boolean {
  let parent = node.parent;
  let child: SyntaxNode = node;
  while (parent && WRAPPERS.has(parent.type)) {
    // The sole argument of a call that is itself an operand (`abs(d) > tol`); never the called function.
    if (parent.type === "argument_list" || parent.type === "arguments")
      return parent.namedChildren.length === 1 && parent.parent !== null && isOperand(parent.parent);
    child = parent;
    parent = parent.parent;
  }
  if (!parent || !OPERATIONS.has(parent.type)) return false;
  return parent.childForFieldName("function")?.id !== child.id;
}
