/** Number of 1 bits in the non-negative integer n. */
export function popcount(n) {
  let count = 0;
  while (n > 1) {
    count += n % 2;
    n = Math.floor(n / 2);
  }
  return count;
}

/** Positions at which a and b differ, bit by bit. */
export function hamming(a, b) {
  return popcount(a ^ b);
}
