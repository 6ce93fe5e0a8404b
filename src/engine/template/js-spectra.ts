// Per-test line coverage for JavaScript/TypeScript from Node's built-in V8 coverage:
// each test runs alone (through the verifier, in the sandbox) with NODE_V8_COVERAGE set,
// and V8's block ranges are turned into the repository lines that test executed. A test
// can write its own coverage file there: script URLs go through the safe-path check.
import { NODE_WATCHDOG } from "../../verify/node-test-watchdog.ts";
import { readdir, mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import type { RunTimeLimit, Verifier } from "../../verify/local-verifier.ts";
import type { TestSelection } from "../../verify/runners/test-runner.ts";
import { readWorktreeText } from "../../workspace/read-worktree-file.ts";
import type { TestSpectrum } from "./ochiai.ts";
import { reportedFileFilter, type Spectra } from "./reported-files.ts";
import { readRunOutput } from "../../verify/read-run-output.ts";

const coverageSchema = z.object({
  result: z.array(
    z.object({
      url: z.string(),
      functions: z.array(
        z.object({ ranges: z.array(z.object({ startOffset: z.int(), endOffset: z.int(), count: z.int() })) }),
      ),
    }),
  ),
});

type Range = { startOffset: number; endOffset: number; count: number };

/** `limitFor`: each test's run limit (the candidate limit, from the unchanged code's timings), so a test that loops costs seconds here too. */
export async function jsSpectra(
  workspace: string,
  verifier: Verifier,
  testIds: string[],
  limitFor?: (selection: TestSelection) => RunTimeLimit | undefined,
): Promise<Spectra> {
  const safe = reportedFileFilter(workspace);
  const spectra: TestSpectrum[] = [];
  const sources = new Map<string, string>();
  for (const id of testIds) {
    const dir = await mkdtemp(join(tmpdir(), "autogen-v8cov-"));
    try {
      const selection: TestSelection = { kind: "tests", ids: [id] };
      const report = await verifier.run(workspace, selection, { NODE_V8_COVERAGE: dir }, limitFor?.(selection));
      const result = report.tests.find((t) => t.id === id) ?? report.tests.find((t) => t.status !== "skip");
      if (!result || result.status === "skip") continue;
      const lines = new Map<string, Set<number>>();
      for (const name of await readdir(dir)) {
        if (!name.endsWith(".json")) continue;
        const raw = await readRunOutput(join(dir, name), 256 * 1024 * 1024);
        if (raw === undefined) continue;
        const parsed = coverageSchema.safeParse(JSON.parse(raw));
        if (!parsed.success) continue;
        for (const script of parsed.data.result) {
          if (!script.url.startsWith("file://")) continue;
          let path: string;
          try {
            path = fileURLToPath(script.url);
          } catch {
            continue;
          }
          // node_modules, and the bot's own watchdog preloaded into each test process: not the repository's code.
          if (path.includes("/node_modules/") || path === NODE_WATCHDOG) continue;
          const relative = safe.accept(path, { absolute: true });
          if (relative === undefined) continue;
          const source = sources.get(relative) ?? (await readWorktreeText(workspace, relative));
          sources.set(relative, source);
          const covered = coveredLines(
            source,
            script.functions.flatMap((f) => f.ranges),
          );
          const set = lines.get(relative) ?? new Set<number>();
          for (const line of covered) set.add(line);
          lines.set(relative, set);
        }
      }
      spectra.push({ id, failed: result.status === "fail" || result.status === "error", lines });
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  }
  return { spectra, dropped: safe.dropped() };
}

/** A line is executed when the innermost V8 range holding its first character ran. */
export function coveredLines(source: string, ranges: readonly Range[]): Set<number> {
  const covered = new Set<number>();
  let offset = 0;
  source.split("\n").forEach((text, index) => {
    const first = text.search(/\S/);
    if (first >= 0 && !/^\s*(\/\/|\*|\/\*|})/.test(text)) {
      const at = offset + first;
      let best: Range | undefined;
      for (const r of ranges) {
        if (
          r.startOffset <= at &&
          at < r.endOffset &&
          (!best || r.endOffset - r.startOffset <= best.endOffset - best.startOffset)
        )
          best = r;
      }
      if (best && best.count > 0) covered.add(index + 1);
    }
    offset += text.length + 1;
  });
  return covered;
}
