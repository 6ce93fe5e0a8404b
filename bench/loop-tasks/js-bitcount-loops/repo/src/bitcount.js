/** Number of 1 bits in the non-negative integer n (Kernighan: each step clears the lowest set bit). */
export function bitcount(n) {
  let count = 0;
  while (n !== 0) {
    n ^= n - 1;
    count += 1;
  }
  return count;
}

/** Whether n is a power of two. */
export function isPowerOfTwo(n) {
  return n > 0 && (n & (n - 1)) === 0;
}
