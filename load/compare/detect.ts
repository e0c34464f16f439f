// The statistical verdict of the baseline compare, per endpoint: is this run slower than the
// baseline, by more than the smallest effect the user cares about?
//
// A regression needs both:
// - evidence: the one-sided Mann-Whitney test of "this run's durations are larger" rejects at alpha,
//   Bonferroni-corrected over the endpoints compared (with six endpoints and alpha 0.01, each is tested
//   at 0.0017, so a run of six unchanged endpoints is flagged by chance at most 1% of the time);
// - size: the lower bound of the confidence interval of the median ratio exceeds 1 + minEffect, so a
//   real but tiny slowdown (which a long run makes significant) is not a regression, and an effect is
//   flagged only when even its optimistic reading is larger than the minimum.
// Both are computed on durations divided by the calibration ratio: the median of the calibration
// request in this run over its median in the baseline (the same trivial request timed in both runs
// under the same load, docs/load.md), so a slower machine is not a slower release. The bootstrap
// interval redraws the calibration samples too, so its noise widens the interval; the test takes the
// calibration ratio as exact, which is why a regression needs the interval as well as the test.
// With few requests (a smoke run's 5 against 5) no arrangement of the durations reaches the level:
// such an endpoint is marked undecidable, and the caller judges it by another rule or not at all.
import { CALIBRATION_ENDPOINT } from '../../core/formats.ts';
import { type BootstrapOptions, mannWhitneyGreater, median, medianRatioInterval } from './stats.ts';
import { type RunSamples, toSamples } from './samples.ts';

export interface DetectOptions extends BootstrapOptions {
  /** Family-wise false-alarm rate over the endpoints compared (default 0.01). */
  alpha?: number;
  /** The smallest slowdown that counts, as a fraction: 0.1 = 10% (default). */
  minEffect?: number;
  /** The endpoint tag of the calibration request (default "calibration"). */
  calibration?: string;
}

export interface EndpointDetection {
  endpoint: string;
  regression: boolean;
  /** False when even a run slower on every request could not reach the level: too few requests. */
  decidable: boolean;
  /** Calibrated median ratio run / baseline (1.25: 25% slower), with its bootstrap interval. */
  effect: number;
  lower: number;
  upper: number;
  /** One-sided Mann-Whitney p-value, and the level it was held to (alpha / endpoints compared). */
  p: number;
  alpha: number;
  method: 'exact' | 'asymptotic';
  n: { run: number; base: number };
  /** Medians in ms: this run's, and the baseline's times the calibration ratio. */
  median: { run: number; calibratedBase: number };
  reason: string;
}

export interface Detection {
  rule: 'mann-whitney+median-ratio';
  alpha: number;
  minEffect: number;
  confidence: number;
  /** This run's calibration median over the baseline's (null: a run lacks the calibration request). */
  scale: number | null;
  endpoints: EndpointDetection[];
  /** Endpoints of this run with no samples in the baseline (or none in the run): not judged. */
  notCompared: string[];
  regression: boolean;
}

const fmt = (n: number, digits = 3) => Number(n.toPrecision(digits)).toString();
const pct = (n: number) => `${fmt(n * 100)}%`;

/** The smallest p the test can give for these sizes: every value of the run above every value of the baseline. */
export function smallestP(n1: number, n2: number): number {
  const x = Array.from({ length: n1 }, (_, i) => n2 + 1 + i);
  const y = Array.from({ length: n2 }, (_, i) => 1 + i);
  return mannWhitneyGreater(x, y).p;
}

/** Judges each endpoint present in both runs. Samples are raw durations in ms, per endpoint tag. */
export function detectRegressions(run: Record<string, ArrayLike<number>>, base: Record<string, ArrayLike<number>>, o: DetectOptions = {}): Detection {
  const alpha = o.alpha ?? 0.01;
  const minEffect = o.minEffect ?? 0.1;
  const confidence = o.confidence ?? 0.95;
  const calName = o.calibration ?? CALIBRATION_ENDPOINT;
  const runCal = run[calName];
  const baseCal = base[calName];
  const calibrated = (runCal?.length ?? 0) > 0 && (baseCal?.length ?? 0) > 0;
  const scale = calibrated ? median(runCal) / median(baseCal) : null;
  const names = Object.keys(run)
    .filter((n) => n !== calName)
    .sort();
  const compared = names.filter((n) => run[n].length > 0 && (base[n]?.length ?? 0) > 0);
  const notCompared = names.filter((n) => !compared.includes(n));
  const each = alpha / Math.max(1, compared.length);
  const endpoints = compared.map((name): EndpointDetection => {
    const x = Float64Array.from(run[name], (v) => v / (scale ?? 1));
    const y = base[name];
    const test = mannWhitneyGreater(x, y);
    const ci = medianRatioInterval(calibrated ? { run: run[name], base: y, runCalibration: runCal, baseCalibration: baseCal } : { run: run[name], base: y }, {
      confidence,
      resamples: o.resamples,
      seed: o.seed,
    });
    const significant = test.p < each;
    const large = ci.lower > 1 + minEffect;
    const regression = significant && large;
    // Only small samples can be undecidable; past 20 a side the smallest p is far below any usable level.
    const floor = Math.min(x.length, y.length) <= 20 ? smallestP(x.length, y.length) : 0;
    const decidable = floor < each;
    const calibratedBase = median(y) * (scale ?? 1);
    const what = `median ${fmt(median(run[name]))} ms is ${fmt(ci.estimate)}x the ${calibrated ? 'calibrated ' : 'uncalibrated '}baseline ${fmt(calibratedBase)} ms (${pct(confidence)} CI ${fmt(ci.lower)}-${fmt(ci.upper)}x; Mann-Whitney p ${fmt(test.p, 2)}, n ${x.length}/${y.length})`;
    const why = regression
      ? `slower: p < ${fmt(each, 2)} and the interval is above ${fmt(1 + minEffect)}x`
      : !decidable
        ? `too few requests to tell: the smallest p for n ${x.length}/${y.length} is ${fmt(floor, 2)}, not below ${fmt(each, 2)}`
        : !significant
          ? `not shown slower: p >= ${fmt(each, 2)}`
          : `slower, but not by the minimum effect: the interval reaches below ${fmt(1 + minEffect)}x (--min-effect ${pct(minEffect)})`;
    return {
      endpoint: name,
      regression,
      decidable,
      effect: ci.estimate,
      lower: ci.lower,
      upper: ci.upper,
      p: test.p,
      alpha: each,
      method: test.method,
      n: { run: x.length, base: y.length },
      median: { run: median(run[name]), calibratedBase },
      reason: `${why}: ${what}`,
    };
  });
  return { rule: 'mann-whitney+median-ratio', alpha, minEffect, confidence, scale, endpoints, notCompared, regression: endpoints.some((e) => e.regression) };
}

/** detectRegressions on the histograms a run and a baseline keep (samples.ts). */
export function detectFromHistograms(run: RunSamples, base: RunSamples, o: DetectOptions = {}): Detection {
  const expand = (s: RunSamples) => Object.fromEntries(Object.entries(s.endpoints).map(([k, h]) => [k, toSamples(h)]));
  return detectRegressions(expand(run), expand(base), o);
}
