// Which passing tests localisation leaves out of its second (focus) trace run. Under
// Python 3.11's sys.settrace every call of every traced test goes through a Python-level
// trace function, so a call-heavy test costs 3 to 5 times its own time traced, whatever the
// focus. A few heavy tests often hold most of a suite's time (more-itertools: 4 of 736 tests,
// about 60%): leaving out the heaviest passing tests, fewest first, until the traced ones hold
// at most TRACED_SHARE of the unchanged code's suite time keeps localisation within a small
// multiple of the plain suite. Only a test of at least HEAVY_FACTOR times the mean passing
// test's time is left out (so at most a tenth of them), and only when those heavy tests hold
// at least HEAVY_SHARE of the suite's time: a suite whose time is spread, or one slow outlier,
// keeps every test. The failing tests are always traced. Deterministic for given timings.

/** The share of the plain suite's time the traced passing tests may hold. */
export const TRACED_SHARE = 0.4;

/** A passing test is heavy from this multiple of the mean passing test's time. */
export const HEAVY_FACTOR = 10;
/** Heavy tests are left out only when together they hold at least this share of the suite's time. */
export const HEAVY_SHARE = 0.25;

export type TimedTest = { id: string; ms: number | undefined };

/** `passing`: the tests the focus run would trace; `failingMs`: the failing tests' summed time. Returns the ids to leave out. */
export function heavyTestsToLeaveOut(passing: readonly TimedTest[], failingMs: number): string[] {
  const ms = (t: TimedTest) => (t.ms !== undefined && Number.isFinite(t.ms) && t.ms > 0 ? t.ms : 0);
  const passingMs = passing.reduce((sum, t) => sum + ms(t), 0);
  const budget = TRACED_SHARE * (passingMs + Math.max(0, failingMs));
  const heaviest = [...passing].sort((a, b) => ms(b) - ms(a) || a.id.localeCompare(b.id));
  const threshold = (HEAVY_FACTOR * passingMs) / Math.max(1, passing.length);
  const heavy = heaviest.filter((t) => ms(t) >= threshold);
  const heavyMs = heavy.reduce((sum, t) => sum + ms(t), 0);
  if (heavyMs < HEAVY_SHARE * (passingMs + Math.max(0, failingMs))) return [];
  const leftOut: string[] = [];
  let traced = passingMs;
  for (const test of heavy) {
    if (traced <= budget) break;
    leftOut.push(test.id);
    traced -= ms(test);
  }
  return leftOut;
}
