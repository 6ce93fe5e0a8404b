// How many of SLPW's sampled plans differ in substance: plans that say the same in other
// spacing, case or punctuation, or that share nearly all their words, count once. Exact
// text alone counted a copy with one comma moved as a new plan.

/** Two plans whose word sets overlap this much (Jaccard) say the same thing. */
const SAME_PLAN = 0.9;

export function distinctPlans(plans: ReadonlyArray<readonly string[]>): number {
  const kept: Array<Set<string>> = [];
  for (const steps of plans) {
    const words = new Set(
      steps
        .join(" ")
        .toLowerCase()
        .match(/[\p{L}\p{N}_]+/gu) ?? [],
    );
    if (!kept.some((k) => jaccard(k, words) >= SAME_PLAN)) kept.push(words);
  }
  return kept.length;
}

function jaccard(a: ReadonlySet<string>, b: ReadonlySet<string>): number {
  if (a.size === 0 && b.size === 0) return 1;
  let both = 0;
  for (const w of a) if (b.has(w)) both += 1;
  return both / (a.size + b.size - both);
}
