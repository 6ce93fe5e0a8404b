// The repository lines a failing test's traceback or stack passed through, innermost
// first, as paths relative to the workspace: where the code context starts.
import type { TestCaseResult } from "../../verify/test-report.ts";
import type { Frame } from "./build-context.ts";

const PATTERNS = [
  /File "([^"]+)", line (\d+)/,
  /^([^\s:]+\.(?:py|[cm]?[jt]sx?)):(\d+)(?::\d+)?:? /,
  /\(?((?:[^\s()]+\/)?[^\s():]+\.[cm]?[jt]sx?):(\d+):\d+\)?$/,
];

export function failureFrames(failing: readonly TestCaseResult[], workspace: string): Frame[] {
  const out: Frame[] = [];
  const seen = new Set<string>();
  for (const test of failing) {
    const frames: Frame[] = [];
    for (const line of (test.details ?? "").split("\n")) {
      for (const pattern of PATTERNS) {
        const match = pattern.exec(line.trim());
        if (!match) continue;
        const file = relative(match[1] as string, workspace);
        if (file !== undefined) frames.push({ file, line: Number(match[2]) });
        break;
      }
    }
    // Python and pytest print the outermost frame first; JS stacks print the innermost first.
    const pythonOrder = frames.some((f) => f.file.endsWith(".py"));
    for (const frame of pythonOrder ? frames.reverse() : frames) {
      const key = `${frame.file}:${frame.line}`;
      if (!seen.has(key)) out.push(frame);
      seen.add(key);
    }
  }
  return out;
}

function relative(file: string, workspace: string): string | undefined {
  const cleaned = file.replace(/^file:\/\//, "");
  if (cleaned.includes("site-packages") || cleaned.includes("node_modules") || cleaned.startsWith("node:"))
    return undefined;
  const root = workspace.endsWith("/") ? workspace : `${workspace}/`;
  if (cleaned.startsWith(root)) return cleaned.slice(root.length);
  if (cleaned.startsWith("/")) return undefined;
  return cleaned.replace(/^\.\//, "");
}
