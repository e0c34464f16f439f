// Change-points in a series of runs (an endpoint's p50 night after night, the clause pass rate): where
// the level shifted, and by how much. Binary segmentation with a permutation test, the scheme of
// E-Divisive means (Matteson and James 2014, as Hunter uses it on performance histories) with a
// mean-shift statistic on ranks in place of the energy distance:
//
// - the segment's values are replaced by their ranks (ties share the mean rank): one night on a
//   loaded runner, ten times slower, then weighs as one rank, not as a spread that drowns a real
//   shift (20 nights, 40% slower from the 12th, one night 10x: found on ranks, not on the values;
//   see the test);
// - for every split k of the segment (each side at least `minSegment` runs), the weighted difference
//   of the mean ranks, sqrt(k (n - k) / n) |mean(left) - mean(right)| (the CUSUM statistic: the
//   weight keeps splits near the ends from winning on a couple of points);
// - its maximum over the splits is compared with the maximum on `permutations` shuffles of the same
//   values (seeded, so the same history gives the same report): p = (1 + shuffles at least as
//   large) / (1 + shuffles). Shuffling is what "no change" means: the runs are exchangeable;
// - below `alpha`, the best split is a change-point and both sides are searched again.
//
// Once all are found, each is placed again between its two neighbours by least absolute deviation
// from the medians (placeSplit), and sized by the medians on either side. A step is found at its run. A slow ramp has no single step: it is cut where the drift has moved the
// mean most, and again within the pieces, so the earliest change-point reported is where the drift
// began to show. Shifts smaller than `minEffect` are significant but not reported (with enough runs
// the test sees a 1% change that nobody should act on); their sides are still searched.
import { seededRandom } from '../core/random.ts';
import { median } from '../core/quantile.ts';

export interface ChangePoint {
  /** The first run of the new level (an index into the series). */
  index: number;
  /** Medians of the runs between the change-point and its neighbours, before and after. */
  before: number;
  after: number;
  /** after - before. */
  size: number;
  p: number;
}

export interface ChangePointOptions {
  /** Fewest runs on each side of a change-point. */
  minSegment?: number;
  alpha?: number;
  permutations?: number;
  seed?: number;
  /** Smallest |after - before| reported (in the series' units). */
  minEffect?: number;
}

export const DEFAULTS = { minSegment: 3, alpha: 0.01, permutations: 999, seed: 20261123, minEffect: 0 } as const;

/** The ranks of `xs`, 1 to n, ties sharing the mean of their ranks. */
export function ranks(xs: readonly number[]): number[] {
  const order = xs.map((x, i) => [x, i] as const).sort((a, b) => a[0] - b[0]);
  const out = new Array<number>(xs.length);
  for (let i = 0; i < order.length; ) {
    let j = i;
    while (j + 1 < order.length && order[j + 1][0] === order[i][0]) j++;
    for (let k = i; k <= j; k++) out[order[k][1]] = (i + j) / 2 + 1;
    i = j + 1;
  }
  return out;
}

/** The best split of `xs` and its statistic: the first index of the right side. */
export function bestSplit(xs: readonly number[], minSegment: number): { index: number; stat: number } {
  const n = xs.length;
  let total = 0;
  for (const x of xs) total += x;
  let left = 0;
  let best = { index: -1, stat: -1 };
  for (let k = 1; k < n; k++) {
    left += xs[k - 1];
    if (k < minSegment || n - k < minSegment) continue;
    const stat = Math.sqrt((k * (n - k)) / n) * Math.abs(left / k - (total - left) / (n - k));
    // Ties go to the earlier split: on a ramp the drift's start is the better answer.
    if (stat > best.stat + 1e-12 * Math.abs(best.stat)) best = { index: k, stat };
  }
  return best;
}

const deviation = (xs: readonly number[]) => {
  const m = median(xs);
  return xs.reduce((s, x) => s + Math.abs(x - m), 0);
};

/**
 * Where a shift in `xs` is: the split with the least absolute deviation from each side's median.
 * Not the test's statistic: on ranks it leans towards the middle (a clean step at run 24 of 40 is
 * cut at 23), and least squares on the values lets one night ten times slower pull the cut onto
 * itself; absolute deviations weigh that night by its distance, not its square.
 */
export function placeSplit(xs: readonly number[], minSegment: number): number {
  let best = { index: -1, cost: Infinity };
  for (let k = minSegment; k <= xs.length - minSegment; k++) {
    const cost = deviation(xs.slice(0, k)) + deviation(xs.slice(k));
    if (best.index < 0 || cost < best.cost - 1e-12 * Math.abs(best.cost)) best = { index: k, cost };
  }
  return best.index;
}

/** The change-points of `series`, in order. Non-finite values are not allowed: leave those runs out first. */
export function changePoints(series: readonly number[], options: ChangePointOptions = {}): ChangePoint[] {
  const o = { ...DEFAULTS, ...options };
  if (series.some((x) => !Number.isFinite(x))) throw new Error('changePoints: the series holds a value that is not a finite number');
  const rand = seededRandom(o.seed);
  const found: ChangePoint[] = [];
  const search = (lo: number, hi: number) => {
    const seg = ranks(series.slice(lo, hi));
    if (seg.length < 2 * o.minSegment) return;
    const split = bestSplit(seg, o.minSegment);
    if (split.index < 0 || split.stat <= 0) return;
    const shuffled = seg.slice();
    let atLeast = 0;
    for (let i = 0; i < o.permutations; i++) {
      for (let j = shuffled.length - 1; j > 0; j--) {
        const r = Math.floor(rand() * (j + 1));
        [shuffled[j], shuffled[r]] = [shuffled[r], shuffled[j]];
      }
      if (bestSplit(shuffled, o.minSegment).stat >= split.stat * (1 - 1e-12)) atLeast++;
    }
    const p = (1 + atLeast) / (1 + o.permutations);
    if (p >= o.alpha) return;
    const at = lo + split.index;
    const before = median(series.slice(lo, at));
    const after = median(series.slice(at, hi));
    found.push({ index: at, before, after, size: after - before, p });
    search(lo, at);
    search(at, hi);
  };
  search(0, series.length);
  // Each cut placed again and its shift measured between its neighbours, once all are known: the
  // first cut of a segment was made with later shifts still inside it on either side (on a rise and
  // fall the first cut of the whole series lands a run early), between its neighbours it sees one;
  // and it was made on ranks, which lean towards the middle.
  found.sort((a, b) => a.index - b.index);
  const bounds = [0, ...found.map((c) => c.index), series.length];
  for (let pass = 0; pass < 5; pass++) {
    let moved = false;
    for (let i = 1; i < bounds.length - 1; i++) {
      const at = bounds[i - 1] + placeSplit(series.slice(bounds[i - 1], bounds[i + 1]), o.minSegment);
      if (at > bounds[i - 1] && at !== bounds[i]) {
        bounds[i] = at;
        found[i - 1].index = at;
        moved = true;
      }
    }
    if (!moved) break;
  }
  return found
    .map((c, i) => {
      const before = median(series.slice(bounds[i], c.index));
      const after = median(series.slice(c.index, bounds[i + 2]));
      return { ...c, before, after, size: after - before };
    })
    .filter((c) => Math.abs(c.size) >= o.minEffect);
}
