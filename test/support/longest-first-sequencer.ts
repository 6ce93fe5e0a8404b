// Orders test files for a run: with a few workers on a busy machine, the run ends when the last
// long file ends, so long files must start first. Vitest does that from its cache of earlier
// durations; a fresh clone has no cache. There the order comes from the durations recorded in
// test/support/file-durations.json (`npm run test:durations` writes them from a full run's cache):
// files missing from it first (a new file may be long), largest first, then the recorded ones,
// longest first. By size alone the three red-team CLI files (small files that run the CLI on
// hostile repositories, ~200 s each) started last, and the run's final minutes had one core idle.
// (The sequencer before this one tested for vitest's cached file sizes, which every run records
// before it sorts, so it never reordered anything: vitest's own order by size ran.)
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";
import { z } from "zod";

export const DURATIONS_FILE = "test/support/file-durations.json";

const durationsSchema = z.record(z.string(), z.number().nonnegative());

const bytes = (path: string): number => {
  try {
    return statSync(path).size;
  } catch {
    return 0;
  }
};

/** The file's size plus that of the modules it imports from the test folder (one level: its helpers). */
function weight(file: string, testRoot: string): number {
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    return 0;
  }
  const helpers = new Set<string>();
  for (const [, specifier = ""] of text.matchAll(/^import [^;]*?from "(\.{1,2}\/[^"]+)";/gm)) {
    const path = resolve(dirname(file), specifier);
    if (!relative(testRoot, path).startsWith("..")) helpers.add(path);
  }
  return text.length + [...helpers].reduce((sum, path) => sum + bytes(path), 0);
}

/** Recorded seconds by file (relative to the root); an unreadable table is no table: the order is only an order. */
export function readDurations(root: string): Map<string, number> {
  try {
    const parsed = durationsSchema.safeParse(JSON.parse(readFileSync(resolve(root, DURATIONS_FILE), "utf8")));
    return new Map(parsed.success ? Object.entries(parsed.data) : []);
  } catch {
    return new Map();
  }
}

/** Unrecorded files first, largest first; then recorded ones, longest first. */
export function longestFirst<T>(
  files: readonly T[],
  path: (file: T) => string,
  recorded: ReadonlyMap<string, number>,
  size: (file: T) => number,
): T[] {
  const unknown = files.filter((f) => !recorded.has(path(f)));
  const known = files.filter((f) => recorded.has(path(f)));
  return [
    ...unknown.sort((a, b) => size(b) - size(a)),
    ...known.sort((a, b) => (recorded.get(path(b)) ?? 0) - (recorded.get(path(a)) ?? 0)),
  ];
}

export default class LongestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const root = this.ctx.config.root;
    const cache = this.ctx.cache;
    // Results of an earlier run (its durations), not the file sizes vitest records before every run.
    const known = (spec: TestSpecification) =>
      cache.getFileTestResults(`${spec.project.name}:${relative(root, spec.moduleId)}`) !== undefined;
    if (ordered.some(known)) return ordered;
    const testRoot = resolve(root, "test");
    const weights = new Map(ordered.map((spec) => [spec, weight(spec.moduleId, testRoot)]));
    return longestFirst(
      ordered,
      (spec) => relative(root, spec.moduleId),
      readDurations(root),
      (spec) => weights.get(spec) ?? 0,
    );
  }
}
