import { UNITS } from "./units.js";

// Milliseconds as a short human string: the largest unit reached, one decimal when under 10.
export function formatDuration(ms) {
  if (!Number.isFinite(ms) || ms < 0) throw new RangeError(`not a duration: ${ms}`);
  for (const unit of UNITS) {
    if (ms >= unit.ms) {
      const amount = ms / unit.ms;
      return `${amount < 10 && !Number.isInteger(amount) ? amount.toFixed(1) : Math.round(amount)}${unit.suffix}`;
    }
  }
  return `${ms}ms`;
}
