/** Greatest common divisor of two positive integers, by subtraction. */
export function gcd(a, b) {
  while (a !== b) {
    if (a > b) a -= b;
    else b -= a;
  }
  return a;
}

/** The fraction n/d in lowest terms, as [numerator, denominator]. */
export function simplify(n, d) {
  const g = gcd(n, d);
  return [n / g, d / g];
}
