// The behaviour table in the report's proof: the calls the model wrote from the issue,
// each call's output on the code before and after the change, and what the issue
// expects; a change the issue did not ask for is flagged ⚠️, an output that contradicts
// the issue ❌. Without one, the reason (no model, a runner the harness does not cover).
import type { BehaviourRow, BehaviourTable } from "../engine/behaviour/behaviour-table.ts";
import { cut } from "./report-sections.ts";

const CELL_CHARS = 200;
const MARK: Record<BehaviourRow["flag"], string> = { ok: "", contradicts: "❌", unrequested: "⚠️" };

/** Model-written text in a table cell: code, one line, no HTML, no cell break. */
function code(text: string): string {
  const escaped = cut(text, CELL_CHARS)
    .replaceAll("&", "&amp;")
    .replaceAll("<", "&lt;")
    .replaceAll(">", "&gt;")
    .replaceAll("|", "&#124;")
    .replaceAll("`", "&#96;")
    .replace(/\r?\n/g, " ");
  return `<code>${escaped}</code>`;
}

function inlineText(text: string): string {
  return code(text).replace(/^<code>|<\/code>$/g, "");
}

function markOf(row: BehaviourRow): string {
  if (row.flag !== "ok") return MARK[row.flag];
  if (row.expected !== "unspecified") return "✅";
  return row.before === row.after ? "=" : "";
}

const WRITTEN = {
  "before-fix": " with the reproduction test, before any fix existed",
  "after-fix": ", shown the fix",
  unknown: "",
} as const;

export function behaviourLines(table: BehaviourTable | undefined): string[] {
  if (!table) return [];
  const out = ["", "#### Behaviour on inputs the fix's author did not choose", ""];
  if (table.kind === "none") return [...out, `No behaviour table: ${table.reason}.`];
  const changed = table.rows.filter((r) => r.flag === "unrequested").length;
  const wrong = table.rows.filter((r) => r.flag === "contradicts").length;
  out.push(
    `The model wrote ${String(table.rows.length)} call(s) of \`${table.module}\` from the issue${WRITTEN[table.written ?? "unknown"]}; each ran in the sandbox on the code before and after the change. ✅ as the issue expects, = unchanged where the issue says nothing, ⚠️ changed where the issue asked for no change, ❌ not what the issue expects.`,
    "",
    "| | Input | Before | After | Expected by the issue |",
    "|---|---|---|---|---|",
    ...table.rows.map(
      (r) =>
        `| ${markOf(r)} | ${code(r.call)} | ${code(r.before)} | ${code(r.after)} | ${r.expected === "unspecified" ? "unspecified" : code(r.expected)} |`,
    ),
    "",
  );
  if (wrong > 0) out.push(`- ❌ ${String(wrong)} output(s) contradict the issue: the change is not called fixed.`);
  if (changed > 0)
    out.push(
      `- ⚠️ ${String(changed)} output(s) changed where the issue asked for no change: ${table.rows
        .filter((r) => r.flag === "unrequested")
        .slice(0, 3)
        .map((r) => `${code(r.call)} (${r.why.replaceAll("\n", " ").slice(0, 200)})`)
        .join("; ")}.`,
    );
  if (table.setAside)
    out.push(
      `- The calls written with the reproduction test were not used (${inlineText(table.setAside)}): these were asked for once the fix passed.`,
    );
  if (wrong === 0 && changed === 0)
    out.push("- ✅ Every output is what the issue expects, or unchanged where the issue says nothing.");
  return out;
}
