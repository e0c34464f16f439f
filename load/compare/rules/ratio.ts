// The ratio latency rule: p50, p95 and p99 against the baseline's times the calibration scale, each
// with its tolerance (a factor) and a floor in milliseconds below which a difference is noise. It
// judges the endpoints the statistical rule cannot (a smoke run's handful of requests, runs without samples).
import { type CompareRule, type RuleInput, round } from './rule.ts';

export const RATIO_RULE = 'ratio';

type Percentile = 'p50' | 'p95' | 'p99';

/** ratio > 1: slower than the baseline after allowing for the machine (calibration) difference. */
export function latencyRatio(i: RuleInput, k: Percentile): number {
  return i.baseline[k] > 0 ? i.run[k] / (i.baseline[k] * i.scale) : 1;
}

function judgePercentile(i: RuleInput, k: Percentile, limit: number, minCount: number): string[] {
  const { run: e, baseline: b, scale, tolerance: tol } = i;
  // p95 and p99 of a few requests are their slowest one: not judged below their counts.
  if (Math.min(e.count, b.count) < minCount) return [];
  const r = latencyRatio(i, k);
  if (r > limit && e[k] - b[k] * scale > tol.minDeltaMs)
    return [`${k} ${round(e[k], 1)} ms is ${round(r, 2)}x the calibrated baseline ${round(b[k] * scale, 1)} ms (tolerance ${limit}x)`];
  return [];
}

export const ratioRule: CompareRule = {
  id: RATIO_RULE,
  latency: true,
  applies: () => true,
  judge: (i) => [
    ...judgePercentile(i, 'p50', i.tolerance.p50, 1),
    ...judgePercentile(i, 'p95', i.tolerance.p95, i.tolerance.minP95Count),
    ...judgePercentile(i, 'p99', i.tolerance.p99, i.tolerance.minP99Count),
  ],
};
