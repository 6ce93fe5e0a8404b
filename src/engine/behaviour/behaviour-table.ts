// The behaviour table: each generated call's output on the code before and after the fix
// and what the issue expects, and the rule a reviewer can trust: an output the issue
// pins down that the fix does not give is a contradiction (the fix is not called fixed),
// and an output the fix changes where the issue asked for nothing is flagged.
import type { BehaviourCall } from "./behaviour-calls.ts";

/** A call's output as the harness serialised it. */
export type CallOutput =
  | { kind: "value"; repr: string }
  | { kind: "raised"; type: string; message?: string | undefined }
  | { kind: "timeout" }
  | { kind: "invalid"; message: string }
  | { kind: "missing"; message: string };

/** `contradicts`: after differs from what the issue expects; `unrequested`: before != after where the issue expects nothing. */
export type RowFlag = "ok" | "contradicts" | "unrequested";

export type BehaviourRow = {
  call: string;
  why: string;
  before: string;
  after: string;
  /** What the issue expects (the model's reading of it), or "unspecified". */
  expected: string;
  flag: RowFlag;
};

export type BehaviourTable =
  | {
      kind: "table";
      module: string;
      rows: BehaviourRow[];
      /** `before-fix`: the calls came with the reproduction test, written from the issue alone; `after-fix`: asked for once the fix passed, shown its diff. */
      written?: "before-fix" | "after-fix" | undefined;
      /** Why the calls that came with the reproduction test were not used (then `after-fix`). */
      setAside?: string | undefined;
    }
  /** No table, and why (no model, a runner the harness does not cover, the harness could not import the module). */
  | { kind: "none"; reason: string };

export function showOutput(output: CallOutput): string {
  switch (output.kind) {
    case "value":
      return output.repr;
    case "raised":
      return output.message ? `raises ${output.type}: ${output.message}` : `raises ${output.type}`;
    case "timeout":
      return "timed out";
    case "invalid":
      return `not run: ${output.message}`;
    case "missing":
      return `no output: ${output.message}`;
  }
}

function same(a: CallOutput, b: CallOutput): boolean {
  if (a.kind !== b.kind) return false;
  if (a.kind === "raised" && b.kind === "raised") return a.type === b.type;
  return showOutput(a) === showOutput(b);
}

/** Does the output meet the expectation (an exception by its type, a value by its repr)? */
function meets(output: CallOutput, expected: CallOutput): boolean {
  if (expected.kind === "raised") return output.kind === "raised" && output.type === expected.type;
  if (expected.kind === "value") return output.kind === "value" && output.repr === expected.repr;
  // An expectation that did not evaluate to a value (it raised, it is no expression) pins nothing we can compare.
  return true;
}

export function buildRows(
  calls: readonly BehaviourCall[],
  before: readonly CallOutput[],
  after: readonly CallOutput[],
  expected: ReadonlyArray<CallOutput | undefined>,
): BehaviourRow[] {
  return calls.map((call, i) => {
    const b = before[i] ?? { kind: "missing", message: "the harness gave no output" };
    const a = after[i] ?? { kind: "missing", message: "the harness gave no output" };
    const e = call.expected === undefined ? undefined : expected[i];
    let flag: RowFlag = "ok";
    if (a.kind === "invalid") flag = "ok";
    else if (e !== undefined) flag = meets(a, e) ? "ok" : "contradicts";
    else if (!same(b, a)) flag = "unrequested";
    return {
      call: call.call,
      why: call.why,
      before: showOutput(b),
      after: showOutput(a),
      expected: call.expected === undefined ? "unspecified" : e?.kind === "value" ? e.repr : call.expected,
      flag,
    };
  });
}

export function flagged(table: BehaviourTable | undefined, flag: Exclude<RowFlag, "ok">): BehaviourRow[] {
  return table?.kind === "table" ? table.rows.filter((r) => r.flag === flag) : [];
}
