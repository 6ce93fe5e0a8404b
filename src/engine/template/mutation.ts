// A candidate edit from a repair template: replace one span of one file.
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
