// Prints one plain closing line, `N passed, N failed` (plus skipped), after vitest's own
// summary: the line CI reads. A module that failed to load or set up counts as a failure.
import type { Reporter, TestModule } from "vitest/node";

export default class SummaryReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    let passed = 0;
    let failed = unhandledErrors.length;
    let skipped = 0;
    for (const module of testModules) {
      let failedHere = 0;
      for (const test of module.children.allTests()) {
        const state = test.result().state;
        if (state === "passed") passed += 1;
        else if (state === "failed") failedHere += 1;
        else skipped += 1;
      }
      // A suite whose setup or teardown failed leaves its tests skipped: still a failure.
      failed += failedHere === 0 && module.state() === "failed" ? 1 : failedHere;
    }
    process.stdout.write(`\n${passed} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ""}\n`);
  }
}
