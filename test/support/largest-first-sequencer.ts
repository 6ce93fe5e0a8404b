// Orders test files for a run: with two workers, the run ends when the last long file ends,
// so long files must start first. Vitest already does that from its cache of earlier
// durations; on a fresh clone (no cache) it keeps the glob's alphabetical order, which
// started the longest end-to-end files (test/app/ci-flow, issue-flow) late. Here files with
// no recorded duration go largest first (size is a fair proxy: the long files are the
// end-to-end flows, the largest files), ahead of those with one, which keep vitest's order.
import { statSync } from "node:fs";
import { relative } from "node:path";
import { BaseSequencer, type TestSpecification } from "vitest/node";

const size = (spec: TestSpecification): number => {
  try {
    return statSync(spec.moduleId).size;
  } catch {
    return 0;
  }
};

export default class LargestFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const ordered = await super.sort(files);
    const cache = this.ctx.cache;
    const known = (spec: TestSpecification) =>
      cache.getFileStats(`${spec.project.name}:${relative(this.ctx.config.root, spec.moduleId)}`) !== undefined;
    if (ordered.some(known)) return ordered;
    return [...ordered].sort((a, b) => size(b) - size(a));
  }
}
