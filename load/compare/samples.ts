// Per-endpoint request durations of a load run, kept small enough to commit in a baseline, for the
// statistical compare (detect.ts). Made from every request's duration as the load's processor timed it
// (load/artillery/run.ts), or from the bucket counts a cloud run gives Artillery (load/artillery/counters.ts).
//
// Kept as a log-bucketed histogram (bucket i holds [g^i, g^(i+1)) ms, g = 1.02), not a reservoir:
// - its size is bounded by the spread of the latencies, not the number of requests: about 35 buckets
//   per doubling, a hundred or so for a real endpoint, whether the run sent 50 requests or 500 000;
// - it keeps every request, so the test's n is the run's real count (a reservoir of N throws power away);
// - it is deterministic: the same run gives the same file, and a committed baseline diffs cleanly
//   (a reservoir needs a seed and still changes with the order of the rows);
// - histograms of several runners merge exactly by adding counts (--merge); reservoirs only approximately.
// The price is a quantisation of at most 1% (half a bucket, each duration read as its bucket's
// geometric middle): ten times finer than the smallest effect the compare judges by default (10%).
// Equal bucket values are ties for the Mann-Whitney test, which its tie correction accounts for.
import { quantileSorted } from './stats.ts';

export const GROWTH = 1.02;
/** Durations below this (ms) share the lowest bucket: a duration of 0 has no logarithm. */
const FLOOR_MS = 0.001;

/** The durations of one endpoint: counts[j] requests took between growth^(start+j) and growth^(start+j+1) ms. */
export interface DurationHistogram {
  growth: number;
  start: number;
  counts: number[];
}

/** What a run keeps: a histogram per endpoint tag (the calibration request's included). */
export interface RunSamples {
  format: 'console-conformance.duration-histograms/1';
  endpoints: Record<string, DurationHistogram>;
}

export function bucketOf(ms: number, growth = GROWTH): number {
  return Math.floor(Math.log(Math.max(ms, FLOOR_MS)) / Math.log(growth));
}

/** Collects durations bucket by bucket; build() gives the compact histogram. */
export class HistogramBuilder {
  private readonly buckets = new Map<number, number>();
  readonly growth: number;
  constructor(growth = GROWTH) {
    this.growth = growth;
  }
  add(ms: number): void {
    if (!Number.isFinite(ms)) return;
    const i = bucketOf(ms, this.growth);
    this.buckets.set(i, (this.buckets.get(i) ?? 0) + 1);
  }
  build(): DurationHistogram {
    const keys = [...this.buckets.keys()];
    if (keys.length === 0) return { growth: this.growth, start: 0, counts: [] };
    let lo = Infinity;
    let hi = -Infinity;
    for (const k of keys) {
      lo = Math.min(lo, k);
      hi = Math.max(hi, k);
    }
    const counts = new Array<number>(hi - lo + 1).fill(0);
    for (const [k, n] of this.buckets) counts[k - lo] = n;
    return { growth: this.growth, start: lo, counts };
  }
}

export function histogramOf(durations: Iterable<number>, growth = GROWTH): DurationHistogram {
  const b = new HistogramBuilder(growth);
  for (const d of durations) b.add(d);
  return b.build();
}

export function histogramCount(h: DurationHistogram): number {
  let n = 0;
  for (const c of h.counts) n += c;
  return n;
}

/** The value a bucket stands for: its geometric middle, within half a bucket (1%) of every duration in it. */
export function bucketValue(index: number, growth = GROWTH): number {
  return growth ** (index + 0.5);
}

/** The histogram back as ascending durations, one per request (each at its bucket's value). */
export function toSamples(h: DurationHistogram): Float64Array {
  const out = new Float64Array(histogramCount(h));
  let at = 0;
  for (const [j, c] of h.counts.entries()) {
    out.fill(bucketValue(h.start + j, h.growth), at, at + c);
    at += c;
  }
  return out;
}

/** The q-quantile of the histogram's durations (as stats.quantileSorted reads them). */
export function histogramQuantile(h: DurationHistogram, q: number): number {
  return quantileSorted(toSamples(h), q);
}

/** Two runners' histograms of one endpoint as one: counts add (same growth only). */
export function mergeHistograms(a: DurationHistogram, b: DurationHistogram): DurationHistogram {
  if (a.growth !== b.growth) throw new RangeError(`cannot merge histograms of growth ${a.growth} and ${b.growth}`);
  if (a.counts.length === 0) return { ...b, counts: [...b.counts] };
  if (b.counts.length === 0) return { ...a, counts: [...a.counts] };
  const start = Math.min(a.start, b.start);
  const end = Math.max(a.start + a.counts.length, b.start + b.counts.length);
  const counts = new Array<number>(end - start).fill(0);
  for (const h of [a, b]) {
    for (const [j, c] of h.counts.entries()) counts[h.start + j - start] += c;
  }
  return { growth: a.growth, start, counts };
}

export function mergeRunSamples(runs: RunSamples[]): RunSamples {
  const endpoints: Record<string, DurationHistogram> = {};
  for (const r of runs) {
    for (const [name, h] of Object.entries(r.endpoints)) endpoints[name] = endpoints[name] ? mergeHistograms(endpoints[name], h) : h;
  }
  return { format: 'console-conformance.duration-histograms/1', endpoints };
}
