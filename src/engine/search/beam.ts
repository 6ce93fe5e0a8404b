// SEIDR's search bookkeeping: keep the W best candidates of a generation (ties go to the
// earlier one), and a temperature schedule that rises across the N drafts of a step so
// the likeliest program is always among them.
export function selectBeam<T>(candidates: readonly T[], score: (c: T) => number, width: number): T[] {
  return candidates
    .map((c, order) => ({ c, order, s: score(c) }))
    .sort((a, b) => b.s - a.s || a.order - b.order)
    .slice(0, Math.max(0, width))
    .map((x) => x.c);
}

export function temperatureSchedule(drafts: number, from = 0, to = 1): number[] {
  if (drafts <= 1) return [from];
  return Array.from({ length: drafts }, (_, i) => Math.round((from + ((to - from) * i) / (drafts - 1)) * 1000) / 1000);
}

/** Arity and beam width scaled to what the budget allows: N·W programs per generation at most. */
export function scaleSearch(budgetCandidates: number, arity = 10, width = 10): { arity: number; width: number } {
  if (arity * width <= budgetCandidates) return { arity, width };
  const side = Math.max(1, Math.floor(Math.sqrt(budgetCandidates)));
  return { arity: Math.min(arity, side), width: Math.min(width, side) };
}
