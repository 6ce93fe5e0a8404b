// Spectrum-based fault localisation: Ochiai suspiciousness of each line from which tests
// executed it and how they ended. score = ef / sqrt((ef + nf) * (ef + ep)).

export type TestSpectrum = { id: string; failed: boolean; lines: ReadonlyMap<string, ReadonlySet<number>> };

export type SuspiciousLine = {
  file: string;
  line: number;
  score: number;
  failedCovering: number;
  passedCovering: number;
};

/**
 * Passing tests known only in aggregate (JavaScript: one coverage run of the whole suite, see
 * js-spectra.ts): for each line, how many passing tests executed it, in place of their spectra.
 */
export type PassedAggregate = { covering(file: string, line: number): number };

/** `passed`: the passing tests' counts, when `spectra` holds only the failing tests. */
export function ochiai(
  spectra: readonly TestSpectrum[],
  include: (file: string) => boolean = () => true,
  passed?: PassedAggregate,
): SuspiciousLine[] {
  const totalFailed = spectra.filter((s) => s.failed).length;
  if (totalFailed === 0) return [];
  const counts = new Map<string, { file: string; line: number; ef: number; ep: number }>();
  for (const spectrum of spectra) {
    for (const [file, lines] of spectrum.lines) {
      if (!include(file)) continue;
      for (const line of lines) {
        const key = `${file}:${line}`;
        const entry = counts.get(key) ?? { file, line, ef: 0, ep: 0 };
        if (spectrum.failed) entry.ef += 1;
        else entry.ep += 1;
        counts.set(key, entry);
      }
    }
  }
  const ranked: SuspiciousLine[] = [];
  for (const { file, line, ef, ep: traced } of counts.values()) {
    if (ef === 0) continue;
    const ep = traced + (passed?.covering(file, line) ?? 0);
    ranked.push({ file, line, score: ef / Math.sqrt(totalFailed * (ef + ep)), failedCovering: ef, passedCovering: ep });
  }
  // Highest score first; ties broken by position so the order is deterministic.
  return ranked.sort((a, b) => b.score - a.score || a.file.localeCompare(b.file) || a.line - b.line);
}
