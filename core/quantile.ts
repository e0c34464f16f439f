// The one quantile of the project: Hyndman and Fan's type 7 (linear interpolation between order
// statistics; numpy's and R's default), so a median or a p95 means the same wherever it is printed.
// load/compare/stats.ts passes it on to the compare's callers.

/**
 * The q-quantile (q in [0, 1], clamped) of values already in ascending order; NaN for none.
 * For q = 0.5 and an even count, the mean of the two middle values.
 */
export function quantileSorted(asc: ArrayLike<number>, q: number): number {
  const n = asc.length;
  if (n === 0) return Number.NaN;
  const h = (n - 1) * Math.min(1, Math.max(0, q));
  const lo = Math.floor(h);
  const hi = Math.min(n - 1, lo + 1);
  return asc[lo] + (h - lo) * (asc[hi] - asc[lo]);
}

/** The q-quantile of values in any order (they are not reordered); NaN for none. */
export function quantile(values: ArrayLike<number>, q: number): number {
  return quantileSorted(Float64Array.from(values).sort(), q);
}

/** The median: quantile 0.5; NaN for none. */
export function median(values: ArrayLike<number>): number {
  return quantile(values, 0.5);
}
