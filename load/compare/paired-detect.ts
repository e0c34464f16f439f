// The statistical verdict of a paired run (`npm run candidate -- --latency`): every request of the
// paging profile was sent to the current and to the candidate one after the other, in random order,
// from one generator, so each pair shares the machine's and the network's moment. Judging pairs, not
// two heaps of durations, is what makes that pay: per pair the log of candidate over current, in which
// the moment's slowness cancels.
//
// Per operation (the API's endpoint; the profile's tags such as listExperiments.filter and
// listExperiments.deep are workloads of one operation, and a pair's ratio does not care which):
// - effect: the 20%-trimmed mean of the pairs' log ratios (their centre: symmetric when nothing
//   changed, since the order of each pair was drawn at random) minus the same of the calibration
//   request's pairs (the ruler: a path no operation has, so it measures the two sides' distance and
//   stack, not their handlers), as a ratio: 1.10 is the candidate 10% slower;
// - evidence: the one-sided Wilcoxon signed-rank test of "the pairs' log ratios, less the ruler's
//   shift, are centred above 0", Bonferroni-corrected over the operations judged;
// - size: the lower bound of the 95% bootstrap interval of the effect (each resample redraws the
//   ruler's pairs too) is above 1 + minEffect.
// A regression needs both, as the baseline compare's rule (detect.ts) does.
import { CALIBRATION_ENDPOINT as CALIBRATION, type CandidateLatencyEndpoint } from '../../core/formats.ts';
import type { Records } from '../lib/runtime.ts';
import { type BootstrapOptions, median, shiftInterval, signedRankGreater, smallestSignedRankP, trimmedMean } from './stats.ts';

export interface PairedDurations {
  /** Durations in ms, aligned: current[i] and candidate[i] are the two answers to one request. */
  current: number[];
  candidate: number[];
}

/** The aligned pairs of a paired run, per profile tag (setup's probes left out). */
export function pairsByTag(records: Records): Record<string, PairedDurations> {
  const out: Record<string, PairedDurations> = {};
  for (const [tag, e] of Object.entries(records.endpoints)) {
    const c = e.candidate;
    if (!c || c.pairCurrent.length === 0 || tag === 'setup') continue;
    if (c.pairCandidate.length !== c.pairCurrent.length)
      throw new Error(`the pairs of ${tag} are not aligned: ${c.pairCurrent.length} current, ${c.pairCandidate.length} candidate`);
    out[tag] = { current: c.pairCurrent.map((u) => u / 1000), candidate: c.pairCandidate.map((u) => u / 1000) };
  }
  return out;
}

/** The operation a profile tag measures: `listExperiments.filter` -> `listExperiments`. */
export const operationOfTag = (tag: string) => tag.split('.')[0];

export interface PairedDetection {
  rule: 'paired-signed-rank+trimmed-ratio';
  alpha: number;
  minEffect: number;
  confidence: number;
  /** exp of the ruler's shift: the candidate's calibration time over the current's (null: no ruler pairs). */
  calibration: number | null;
  /** One per operation, as candidate.json keeps them (`endpoint` the operation, `n` the pairs on both sides). */
  operations: CandidateLatencyEndpoint[];
  regression: boolean;
}

const fmt = (n: number, digits = 3) => Number(n.toPrecision(digits)).toString();
const logRatios = (p: PairedDurations) => p.current.map((c, i) => Math.log(p.candidate[i] / c)).filter(Number.isFinite);

/** Judges each operation with pairs. Pairs are raw durations in ms per profile tag; `calibration` the ruler's. */
export function detectPaired(byTag: Record<string, PairedDurations>, o: BootstrapOptions & { alpha?: number; minEffect?: number } = {}): PairedDetection {
  const alpha = o.alpha ?? 0.01;
  const minEffect = o.minEffect ?? 0.1;
  const confidence = o.confidence ?? 0.95;
  const ruler = byTag[CALIBRATION] ? logRatios(byTag[CALIBRATION]) : [];
  const shift = ruler.length > 0 ? trimmedMean(ruler) : 0;
  const grouped = new Map<string, PairedDurations>();
  for (const [tag, p] of Object.entries(byTag)) {
    if (tag === CALIBRATION || p.current.length === 0) continue;
    const op = operationOfTag(tag);
    const g = grouped.get(op) ?? { current: [], candidate: [] };
    g.current.push(...p.current);
    g.candidate.push(...p.candidate);
    grouped.set(op, g);
  }
  const names = [...grouped.keys()].sort();
  const each = alpha / Math.max(1, names.length);
  const operations = names.map((operation): CandidateLatencyEndpoint => {
    const p = grouped.get(operation) as PairedDurations;
    const d = logRatios(p);
    const test = signedRankGreater(d.map((v) => v - shift));
    const ci = shiftInterval(d, ruler, { confidence, resamples: o.resamples, seed: o.seed });
    const [ratio, lower, upper] = [ci.estimate, ci.lower, ci.upper].map(Math.exp);
    const significant = test.p < each;
    const large = lower > 1 + minEffect;
    const floor = smallestSignedRankP(d.length);
    const decidable = floor < each;
    const what =
      `${d.length} pairs: the candidate's time is ${fmt(ratio)}x the current's${ruler.length ? ` beyond the ruler's ${fmt(Math.exp(shift))}x` : ' (no ruler pairs: uncalibrated)'}` +
      ` (${fmt(confidence * 100)}% CI ${fmt(lower)}-${fmt(upper)}x; signed-rank p ${fmt(test.p, 2)}; medians ${fmt(median(p.candidate))} vs ${fmt(median(p.current))} ms)`;
    const why =
      significant && large
        ? `slower: p < ${fmt(each, 2)} and the interval is above ${fmt(1 + minEffect)}x`
        : !decidable
          ? `too few pairs to tell: the smallest p for ${d.length} is ${fmt(floor, 2)}, not below ${fmt(each, 2)}`
          : !significant
            ? `not shown slower: p >= ${fmt(each, 2)}`
            : `slower, but not by the minimum effect: the interval reaches below ${fmt(1 + minEffect)}x`;
    return {
      endpoint: operation,
      regression: significant && large,
      decidable,
      ratio,
      lower,
      upper,
      p: test.p,
      alpha: each,
      n: { current: d.length, candidate: d.length },
      median: { current: median(p.current), candidate: median(p.candidate) },
      reason: `${why}: ${what}`,
    };
  });
  return {
    rule: 'paired-signed-rank+trimmed-ratio',
    alpha,
    minEffect,
    confidence,
    calibration: ruler.length > 0 ? Math.exp(shift) : null,
    operations,
    regression: operations.some((x) => x.regression),
  };
}
