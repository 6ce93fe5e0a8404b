/** Steps for n to reach 1 under the Collatz rule. */
export function steps(n) {
  let count = 0;
  while (n !== 1) {
    n = n % 2 === 0 ? n / 2 : 3 * n + 1;
    count += 1;
  }
  return count;
}

/** The start in 1..limit (inclusive) with the most steps. */
export function longest(limit) {
  let best = 1;
  for (let i = 1; i < limit; i += 1) {
    if (steps(i) > steps(best)) best = i;
  }
  return best;
}
