/** The first index whose item is not less than target (items.length when none). */
export function lowerBound(items, target) {
  let lo = 0;
  let hi = items.length - 1;
  while (lo < hi) {
    const mid = Math.floor((lo + hi) / 2);
    if (items[mid] < target) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Inserts value into the sorted array items, keeping it sorted. */
export function insertSorted(items, value) {
  items.splice(lowerBound(items, value), 0, value);
  return items;
}
