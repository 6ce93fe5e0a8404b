// Orders test files for a run: with a few workers, the run ends when the last long file ends,
// so long files must start first. Vitest already does that from its cache of earlier
// durations; on a fresh clone (no cache) it keeps the glob's alphabetical order, which
// started the longest end-to-end files (test/app/ci-flow-*, issue-flow) late. Here files with
// no recorded duration go largest first, ahead of those with one, which keep vitest's order.
// "Largest" counts the file and the test helpers it imports (test/support/…): the long files
// are the end-to-end flows, which are large or share a large harness (the ci-flow-* files
// split one suite over test/support/ci-flow-harness.ts).
import { readFileSync, statSync } from "node:fs";
import { dirname, relative, resolve } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

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

export default class LargestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) =>
      cache.getFileStats(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`) !== undefined;
    if (ordered.some(known)) return ordered;
    const testRoot = resolve(this.ctx.config.root, "test");
    const weights = new Map(ordered.map((spec) => [spec, weight(spec.moduleId, testRoot)]));
    return [...ordered].sort((a, b) => (weights.get(b) ?? 0) - (weights.get(a) ?? 0));
  }
}
