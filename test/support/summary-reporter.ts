// Prints one plain closing line, `N passed, N failed` (plus skipped), after vitest's own
// summary: the line CI reads. A module that failed to load or set up counts as a failure.
//
// When stdout is not a terminal (CI, a log file), vitest's default reporter prints a file only
// once it has finished, so a long end-to-end file looked silent for many minutes. There this
// reporter also prints each test that failed or took a while as it ends, and, after 10 s
// without output, which files are still running and how far they are (in a terminal the
// default reporter already shows all of that live).
import { relative } from "node:path";
import type { Reporter, TestCase, TestModule } from "vitest/node";

const MARKS: Record<string, string> = { passed: "✓", failed: "×", skipped: "↓", pending: "…" };
/** A test at least this long gets its own line. */
const SLOW_MS = 2_000;
const QUIET_MS = 10_000;

export default class SummaryReporter implements Reporter {
  private readonly live: boolean;
  private readonly running = new Map<string, { done: number; started: number }>();
  private lastOutput = Date.now();
  private ticker: NodeJS.Timeout | undefined;

  constructor(options: { live?: boolean } = {}) {
    this.live = options.live ?? !process.stdout.isTTY;
  }

  private print(line: string): void {
    this.lastOutput = Date.now();
    process.stdout.write(`${line}\n`);
  }

  onTestRunStart(): void {
    if (!this.live) return;
    this.lastOutput = Date.now();
    this.ticker = setInterval(() => {
      if (Date.now() - this.lastOutput < QUIET_MS || this.running.size === 0) return;
      const files = [...this.running].map(
        ([file, s]) => `${file} (${s.done} test(s) done, ${Math.round((Date.now() - s.started) / 1000)} s)`,
      );
      this.print(`  … running: ${files.join("; ")}`);
    }, 1_000).unref();
  }

  onTestModuleStart(module: TestModule): void {
    if (this.live) this.running.set(relative(process.cwd(), module.moduleId), { done: 0, started: Date.now() });
  }

  onTestModuleEnd(module: TestModule): void {
    this.running.delete(relative(process.cwd(), module.moduleId));
  }

  onTestCaseResult(test: TestCase): void {
    if (!this.live) return;
    const file = relative(process.cwd(), test.module.moduleId);
    const progress = this.running.get(file);
    if (progress) progress.done += 1;
    const state = test.result().state;
    const ms = test.diagnostic()?.duration ?? 0;
    if (state !== "failed" && ms < SLOW_MS) return;
    this.print(`  ${MARKS[state] ?? state} ${file} > ${test.fullName} (${(ms / 1000).toFixed(1)} s)`);
  }

  onTestRunEnd(testModules: ReadonlyArray<TestModule>, unhandledErrors: ReadonlyArray<unknown>): void {
    if (this.ticker) clearInterval(this.ticker);
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
