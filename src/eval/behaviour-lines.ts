// The behaviour table of an eval task's fix as the eval prints it: one line of verdict
// under the task's line, and the table itself (input, before, after, expected by the
// issue) for a bench to show per task. Model-written text is kept on one line and cut.
import type { BehaviourRow, BehaviourTable } from "../engine/behaviour/behaviour-table.ts";

const CELL = 80;
const MARK: Record<BehaviourRow["flag"], string> = { ok: "ok", contradicts: "CONTRADICTS", unrequested: "UNREQUESTED" };

/** "behaviour: 4 call(s) on src/x.js, 1 output change(s) the issue did not ask for, 0 contradicting it", or why there is no table. */
export function behaviourVerdict(table: BehaviourTable): string {
  if (table.kind === "none") return `behaviour: no table (${table.reason})`;
  const count = (flag: BehaviourRow["flag"]) => table.rows.filter((r) => r.flag === flag).length;
  return `behaviour: ${String(table.rows.length)} call(s) on ${table.module}, ${String(count("unrequested"))} output change(s) the issue did not ask for, ${String(count("contradicts"))} contradicting it`;
}

/** The table as plain text lines, one row per call. */
export function behaviourRows(table: BehaviourTable): string[] {
  if (table.kind === "none") return [];
  return table.rows.map(
    (r) =>
      `${MARK[r.flag]} | ${cell(r.call)} | before ${cell(r.before)} | after ${cell(r.after)} | expected ${cell(r.expected)}`,
  );
}

function cell(text: string): string {
  const line = text.replace(/\s+/g, " ").trim();
  return line.length <= CELL ? line : `${line.slice(0, CELL)}…`;
}
