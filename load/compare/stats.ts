// The statistics of the baseline compare: a one-sided Mann-Whitney U test ("this run is slower"), the
// median ratio with a percentile-bootstrap confidence interval, quantiles, and the seeded generator
// that makes the bootstrap reproducible. Node code with no dependency: a compare must give the same
// verdict on every machine, so every random draw comes from a seed.

import { median, quantile, quantileSorted } from '../../core/quantile.ts';
import { seededRandom } from '../../core/random.ts';

export { seededRandom };

/** A standard normal draw (Box-Muller; 1 - u keeps the logarithm away from 0). */
export function normalDraw(random: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
}

/** A Gamma(shape, 1) draw for shape >= 1 (Marsaglia and Tsang, 2000). */
export function gammaDraw(shape: number, random: () => number): number {
  if (shape < 1) throw new RangeError(`gammaDraw needs shape >= 1, got ${shape}`);
  const d = shape - 1 / 3;
  const c = 1 / Math.sqrt(9 * d);
  for (;;) {
    let x: number;
    let v: number;
    do {
      x = normalDraw(random);
      v = 1 + c * x;
    } while (v <= 0);
    v = v * v * v;
    const u = 1 - random();
    if (Math.log(u) < 0.5 * x * x + d - d * v + d * Math.log(v)) return d * v;
  }
}

/** A Beta(a, b) draw for a, b >= 1. */
export function betaDraw(a: number, b: number, random: () => number): number {
  const x = gammaDraw(a, random);
  return x / (x + gammaDraw(b, random));
}

/** Sorted copy, ascending. */
export function sorted(values: ArrayLike<number>): Float64Array {
  return Float64Array.from(values).sort();
}

// The quantile and median are the project's one definition (type 7: core/quantile.ts), named here too
// for the compare's callers.
export { median, quantile, quantileSorted };

/**
 * erfc(x) to about 1e-14 relative: the Taylor series of erf near 0, the continued fraction (Lentz)
 * further out, where 1 - erf would lose every digit of a small p-value.
 */
export function erfc(x: number): number {
  if (Number.isNaN(x)) return Number.NaN;
  if (x < 0) return 2 - erfc(-x);
  if (x < 2) {
    // erf(x) = 2/sqrt(pi) * sum (-1)^n x^(2n+1) / (n! (2n+1))
    let term = x;
    let sum = x;
    for (let n = 1; n < 200; n++) {
      term *= (-x * x) / n;
      const add = term / (2 * n + 1);
      sum += add;
      if (Math.abs(add) < 1e-17 * Math.abs(sum)) break;
    }
    return 1 - (2 / Math.sqrt(Math.PI)) * sum;
  }
  if (x > 27) return 0;
  // erfc(x) = exp(-x^2)/sqrt(pi) * 1/(x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), modified Lentz.
  const tiny = 1e-300;
  let f = x;
  let c = x;
  let d = 0;
  for (let k = 1; k < 500; k++) {
    const a = k / 2;
    d = x + a * d;
    d = d === 0 ? tiny : d;
    c = x + a / c;
    c = c === 0 ? tiny : c;
    d = 1 / d;
    const delta = c * d;
    f *= delta;
    if (Math.abs(delta - 1) < 1e-16) break;
  }
  return Math.exp(-x * x) / Math.sqrt(Math.PI) / f;
}

/** P(Z > z) for a standard normal Z. */
export function normalSf(z: number): number {
  return 0.5 * erfc(z / Math.SQRT2);
}

export interface MannWhitney {
  /** U of the first sample: the number of (x, y) pairs with x > y, ties counting one half. */
  u: number;
  /** One-sided p-value of "x is stochastically greater than y". */
  p: number;
  /** 'exact' (no ties and a small sample: the null distribution of U counted) or 'asymptotic'. */
  method: 'exact' | 'asymptotic';
  /** The standardised statistic of the normal approximation, continuity-corrected (NaN when exact). */
  z: number;
  n1: number;
  n2: number;
}

/**
 * P(U >= u) under the null, no ties: the counts of U are the coefficients of the Gaussian binomial
 * [n1 + n2 choose m]_q (m the smaller size), built as prod_{i=1..m} (1 - q^(n+i)) / (1 - q^i).
 */
function exactUpperTail(u: number, n1: number, n2: number): number {
  const m = Math.min(n1, n2);
  const n = Math.max(n1, n2);
  const size = m * n + 1;
  const c = new Float64Array(size);
  c[0] = 1;
  for (let i = 1; i <= m; i++) {
    for (let k = size - 1; k >= n + i; k--) c[k] -= c[k - n - i];
    for (let k = i; k < size; k++) c[k] += c[k - i];
  }
  let total = 0;
  let tail = 0;
  for (let k = 0; k < size; k++) {
    total += c[k];
    if (k >= u) tail += c[k];
  }
  return Math.min(1, tail / total);
}

/**
 * One-sided Mann-Whitney U test of "x is stochastically greater than y" (here: this run's durations
 * are slower than the baseline's). Matches scipy.stats.mannwhitneyu(x, y, alternative='greater',
 * use_continuity=True): method 'auto' counts the exact null distribution when there are no ties and
 * one sample has 8 values or fewer, and otherwise uses the normal approximation with the tie
 * correction of the variance and the continuity correction.
 */
export function mannWhitneyGreater(x: ArrayLike<number>, y: ArrayLike<number>, method: 'auto' | 'exact' | 'asymptotic' = 'auto'): MannWhitney {
  const n1 = x.length;
  const n2 = y.length;
  if (n1 === 0 || n2 === 0) throw new RangeError('mannWhitneyGreater needs two non-empty samples');
  const n = n1 + n2;
  // Rank the pooled values, averaging the ranks of ties; sum the ranks of x and the tie term.
  const pooled = new Float64Array(n);
  pooled.set(x, 0);
  pooled.set(y, n1);
  const order = Array.from({ length: n }, (_, i) => i).sort((a, b) => pooled[a] - pooled[b]);
  let rankSumX = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && pooled[order[j]] === pooled[order[i]]) j++;
    const t = j - i;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (order[k] < n1) rankSumX += rank;
    tieTerm += t * t * t - t;
    i = j;
  }
  const u = rankSumX - (n1 * (n1 + 1)) / 2;
  const useExact = method === 'exact' || (method === 'auto' && tieTerm === 0 && Math.min(n1, n2) <= 8);
  if (useExact) {
    if (tieTerm !== 0) throw new RangeError('the exact Mann-Whitney distribution is for samples without ties');
    return { u, p: exactUpperTail(u, n1, n2), method: 'exact', z: Number.NaN, n1, n2 };
  }
  const mu = (n1 * n2) / 2;
  const sigma = Math.sqrt(((n1 * n2) / 12) * (n + 1 - tieTerm / (n * (n - 1))));
  // Every value equal: no evidence either way.
  if (sigma === 0) return { u, p: 1, method: 'asymptotic', z: 0, n1, n2 };
  const z = (u - mu - 0.5) / sigma;
  return { u, p: Math.min(1, normalSf(z)), method: 'asymptotic', z, n1, n2 };
}

/**
 * The median of a bootstrap resample of ascending values, drawn in constant time: the k-th smallest
 * of n uniform draws follows Beta(k, n - k + 1), and the resample's k-th smallest value is
 * asc[floor(n U(k))]. So a resample of a run of 100 000 requests costs a few draws, not 100 000.
 */
export function bootstrapMedian(asc: ArrayLike<number>, random: () => number): number {
  const n = asc.length;
  const at = (u: number) => asc[Math.min(n - 1, Math.floor(n * u))];
  if (n === 1) return asc[0];
  const k = Math.ceil(n / 2);
  const uk = betaDraw(k, n - k + 1, random);
  if (n % 2 === 1) return at(uk);
  // Even n: the next order statistic is uk plus the smallest of the n - k draws above it.
  const next = uk + (1 - uk) * (1 - (1 - random()) ** (1 / (n - k)));
  return (at(uk) + at(next)) / 2;
}

/** A point estimate with its percentile bootstrap interval, and how the interval was drawn. */
export interface BootstrapInterval {
  estimate: number;
  lower: number;
  upper: number;
  confidence: number;
  resamples: number;
  seed: number;
}

/** `estimate`: median(run) / median(base), divided by the calibration ratio when given. */
export type RatioInterval = BootstrapInterval;

export interface RatioSamples {
  run: ArrayLike<number>;
  base: ArrayLike<number>;
  /** The calibration request's durations in the same two runs; their median ratio divides the effect. */
  runCalibration?: ArrayLike<number>;
  baseCalibration?: ArrayLike<number>;
}

export interface BootstrapOptions {
  confidence?: number;
  resamples?: number;
  seed?: number;
}

/**
 * The median ratio run/base (calibrated when both calibration samples are given) with a percentile
 * bootstrap interval: every resample redraws all four samples, so the interval carries the noise of
 * the calibration as well as the endpoint's.
 */
export function medianRatioInterval(s: RatioSamples, o: BootstrapOptions = {}): RatioInterval {
  const confidence = o.confidence ?? 0.95;
  const resamples = o.resamples ?? 2000;
  const seed = o.seed ?? 20261123;
  const run = sorted(s.run);
  const base = sorted(s.base);
  const runCal = sorted(s.runCalibration ?? []);
  const baseCal = sorted(s.baseCalibration ?? []);
  const calibrated = runCal.length > 0 && baseCal.length > 0;
  if (run.length === 0 || base.length === 0) throw new RangeError('medianRatioInterval needs two non-empty samples');
  const ratio = (r: number, b: number, rc: number, bc: number) => (calibrated ? r / b / (rc / bc) : r / b);
  const estimate = ratio(quantileSorted(run, 0.5), quantileSorted(base, 0.5), quantileSorted(runCal, 0.5), quantileSorted(baseCal, 0.5));
  const random = seededRandom(seed);
  const draws = new Float64Array(resamples);
  for (let i = 0; i < resamples; i++) {
    const r = bootstrapMedian(run, random);
    const b = bootstrapMedian(base, random);
    draws[i] = calibrated ? ratio(r, b, bootstrapMedian(runCal, random), bootstrapMedian(baseCal, random)) : ratio(r, b, 1, 1);
  }
  draws.sort();
  const tail = (1 - confidence) / 2;
  return { estimate, lower: quantileSorted(draws, tail), upper: quantileSorted(draws, 1 - tail), confidence, resamples, seed };
}

/**
 * The mean of the middle values: `trim` of them cut off at each end (0.2: the 20%-trimmed mean).
 * On the log ratios of request pairs, symmetric when nothing changed, it estimates their median with
 * nearly the efficiency of the mean (about 0.94 of it for normal values, against the median's 0.64),
 * and a few stalled requests do not move it.
 */
export function trimmedMean(values: ArrayLike<number>, trim = 0.2): number {
  const asc = sorted(values);
  return trimmedMeanSorted(
    asc,
    Int32Array.from({ length: asc.length }, () => 1),
    trim,
  );
}

/** The trimmed mean of ascending `asc` with each value taken `counts[i]` times (a bootstrap resample). */
function trimmedMeanSorted(asc: ArrayLike<number>, counts: ArrayLike<number>, trim: number): number {
  let n = 0;
  for (let i = 0; i < counts.length; i++) n += counts[i];
  if (n === 0) throw new RangeError('trimmedMean needs a non-empty sample');
  const cut = Math.floor(n * trim);
  const from = cut;
  const to = n - cut;
  let sum = 0;
  let at = 0;
  for (let i = 0; i < asc.length && at < to; i++) {
    const c = counts[i];
    const lo = Math.max(at, from);
    const hi = Math.min(at + c, to);
    if (hi > lo) sum += asc[i] * (hi - lo);
    at += c;
  }
  return sum / (to - from);
}

export interface SignedRank {
  /** W+: the sum of the ranks of |value| among the positive values (zeros dropped, ties averaged). */
  w: number;
  /** One-sided p-value of "the values are centred above 0". */
  p: number;
  method: 'exact' | 'asymptotic';
  /** Values that were not 0. */
  n: number;
}

/** P(W+ >= w) for n non-zero values without ties: the counts of every subset sum of the ranks 1..n. */
function signedRankUpperTail(w: number, n: number): number {
  const max = (n * (n + 1)) / 2;
  const c = new Float64Array(max + 1);
  c[0] = 1;
  for (let r = 1; r <= n; r++) for (let k = max; k >= r; k--) c[k] += c[k - r];
  let tail = 0;
  for (let k = Math.ceil(w); k <= max; k++) tail += c[k];
  return Math.min(1, tail / 2 ** n);
}

/**
 * One-sided Wilcoxon signed-rank test of "the values are centred above 0" (here: the log ratios of
 * request pairs, candidate over current: the candidate is slower). Matches
 * scipy.stats.wilcoxon(values, alternative='greater', zero_method='wilcox', correction=True): zeros
 * dropped, exact null distribution for up to 25 values without ties, else the normal approximation
 * with the tie correction of the variance and the continuity correction.
 */
export function signedRankGreater(values: ArrayLike<number>): SignedRank {
  const nz = Array.from(values).filter((v) => v !== 0);
  const n = nz.length;
  if (n === 0) return { w: 0, p: 1, method: 'asymptotic', n: 0 };
  const order = nz.map((_, i) => i).sort((a, b) => Math.abs(nz[a]) - Math.abs(nz[b]));
  let w = 0;
  let tieTerm = 0;
  for (let i = 0; i < n; ) {
    let j = i + 1;
    while (j < n && Math.abs(nz[order[j]]) === Math.abs(nz[order[i]])) j++;
    const t = j - i;
    const rank = (i + 1 + j) / 2;
    for (let k = i; k < j; k++) if (nz[order[k]] > 0) w += rank;
    tieTerm += t * t * t - t;
    i = j;
  }
  if (tieTerm === 0 && n <= 25) return { w, p: signedRankUpperTail(w, n), method: 'exact', n };
  const mu = (n * (n + 1)) / 4;
  const sigma = Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24 - tieTerm / 48);
  if (sigma === 0) return { w, p: 1, method: 'asymptotic', n };
  const z = (w - mu - 0.5) / sigma;
  return { w, p: Math.min(1, normalSf(z)), method: 'asymptotic', n };
}

/** The smallest p the signed-rank test can give for n values: every one of them above 0. */
export function smallestSignedRankP(n: number): number {
  return n <= 25 ? 2 ** -n : normalSf(((n * (n + 1)) / 4 - 0.5) / Math.sqrt((n * (n + 1) * (2 * n + 1)) / 24));
}

/** `estimate`: trimmedMean(values) - trimmedMean(ruler), the shift of the values beyond the ruler's. */
export type ShiftInterval = BootstrapInterval;

/**
 * The trimmed-mean shift of `values` minus that of `ruler` (none: 0), with a percentile bootstrap
 * interval in which every resample redraws both, so the ruler's noise is in the interval.
 */
export function shiftInterval(values: ArrayLike<number>, ruler: ArrayLike<number>, o: BootstrapOptions & { trim?: number } = {}): ShiftInterval {
  const confidence = o.confidence ?? 0.95;
  const resamples = o.resamples ?? 2000;
  const seed = o.seed ?? 20261123;
  const trim = o.trim ?? 0.2;
  const v = sorted(values);
  const r = sorted(ruler);
  if (v.length === 0) throw new RangeError('shiftInterval needs a non-empty sample');
  const ones = (n: number) => new Int32Array(n).fill(1);
  const centre = (asc: Float64Array, counts: Int32Array) => (asc.length === 0 ? 0 : trimmedMeanSorted(asc, counts, trim));
  const estimate = centre(v, ones(v.length)) - centre(r, ones(r.length));
  const random = seededRandom(seed);
  const resample = (asc: Float64Array, counts: Int32Array) => {
    counts.fill(0);
    for (let i = 0; i < asc.length; i++) counts[Math.floor(random() * asc.length)]++;
    return centre(asc, counts);
  };
  const vc = new Int32Array(v.length);
  const rc = new Int32Array(r.length);
  const draws = new Float64Array(resamples);
  for (let i = 0; i < resamples; i++) draws[i] = resample(v, vc) - resample(r, rc);
  draws.sort();
  const tail = (1 - confidence) / 2;
  return { estimate, lower: quantileSorted(draws, tail), upper: quantileSorted(draws, 1 - tail), confidence, resamples, seed };
}
