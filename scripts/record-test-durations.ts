// `npm run test:durations [-- ci.log]`: writes test/support/file-durations.json, the seconds each
// test file took, so that a fresh clone (no cache) starts its long files first
// (test/support/longest-first-sequencer.ts). From a saved output of a full run (the default
// reporter's "✓ test/x.test.ts (N tests) 1234ms" lines, with or without the project's name before
// the path: a CI log, whose durations are the ones
// that matter), else from the newest full run vitest cached (node_modules/.vite/vitest/*/results.json).
// Run it after a full run when files were added or their durations moved a lot.
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { stripVTControlCharacters } from "node:util";
import { z } from "zod";
import { DURATIONS_FILE } from "../test/support/longest-first-sequencer.ts";

const root = join(import.meta.dirname, "..");
const cacheRoot = join(root, "node_modules/.vite/vitest");
const resultsSchema = z.object({
  results: z.array(z.tuple([z.string(), z.object({ duration: z.number().optional() }).loose()])),
});

/** Milliseconds by file from a vitest output: its per-file lines, colours stripped. */
function fromLog(path: string): Map<string, number> {
  const found = new Map<string, number>();
  const plain = stripVTControlCharacters(readFileSync(path, "utf8"));
  for (const [, file = "", ms = "0"] of plain.matchAll(
    /^ [✓❯×↓] +(?:[\w-]+ +)?(test\/\S+\.test\.ts) \([^)]*\) (\d+)ms/gm,
  ))
    found.set(file, Number(ms));
  return found;
}

/** Milliseconds by file from vitest's cache of its newest run. */
function fromCache(): Map<string, number> {
  const files = existsSync(cacheRoot)
    ? readdirSync(cacheRoot)
        .map((dir) => join(cacheRoot, dir, "results.json"))
        .filter((file) => existsSync(file))
        .sort((a, b) => statSync(b).mtimeMs - statSync(a).mtimeMs)
    : [];
  const newest = files[0];
  if (!newest) {
    console.error(`no vitest results under ${cacheRoot}: run the whole suite first (npm run test:unit)`);
    process.exit(2);
  }
  const { results } = resultsSchema.parse(JSON.parse(readFileSync(newest, "utf8")));
  return new Map(
    results.flatMap(([key, { duration }]) =>
      duration === undefined ? [] : [[key.slice(key.indexOf(":") + 1), duration] as const],
    ),
  );
}

const log = process.argv[2];
const durations = log ? fromLog(log) : fromCache();
if (durations.size === 0) {
  console.error(`no per-file durations found in ${log ?? cacheRoot}`);
  process.exit(2);
}
const seconds: Record<string, number> = {};
for (const [file, ms] of durations) if (existsSync(join(root, file))) seconds[file] = Math.round(ms / 100) / 10;
const sorted = Object.fromEntries(Object.entries(seconds).sort(([a], [b]) => a.localeCompare(b)));
writeFileSync(join(root, DURATIONS_FILE), `${JSON.stringify(sorted, null, 2)}\n`);
const total = Object.values(sorted).reduce((sum, s) => sum + s, 0);
console.log(`${Object.keys(sorted).length} files, ${total.toFixed(0)} s in all, from ${log ?? cacheRoot}`);
