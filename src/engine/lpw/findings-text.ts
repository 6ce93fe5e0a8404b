// The template pass's findings as the plan stage reads them: the lines spectrum-based
// localisation ranks most suspicious, and the mechanical edit that passed the most tests.
import type { PriorFindings } from "../task.ts";

const MAX_LINES = 8;
const MAX_DIFF_CHARS = 3000;

export function findingsText(findings: PriorFindings | undefined): string {
  if (!findings) return "";
  const parts: string[] = [];
  if (findings.suspicious.length > 0)
    parts.push(
      `Lines run by the failing tests and least by the passing ones (Ochiai score):\n${findings.suspicious
        .slice(0, MAX_LINES)
        .map((s) => `${s.file}:${s.line} (${s.score.toFixed(2)})`)
        .join("\n")}`,
    );
  if (findings.nearMiss && findings.nearMiss.passed > 0) {
    const { diff, passed, failed } = findings.nearMiss;
    const shown = diff.length > MAX_DIFF_CHARS ? `${diff.slice(0, MAX_DIFF_CHARS)}\n… (diff cut)` : diff;
    parts.push(
      `A mechanical edit that made ${passed} visible test(s) pass (${failed} still failing); not a fix, a clue:\n${shown}`,
    );
  }
  return parts.join("\n\n");
}
