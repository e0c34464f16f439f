// The throughput rule: requests per second below a share of the baseline's, judged once the
// baseline has as many requests as p95 needs (a short run's rate is mostly its ramp).
import { type CompareRule, round } from './rule.ts';

export const THROUGHPUT_RULE = 'throughput';

export const throughputRule: CompareRule = {
  id: THROUGHPUT_RULE,
  latency: false,
  applies: ({ baseline: b, tolerance: tol }) => b.count >= tol.minP95Count && b.rps > 0,
  judge: ({ run: e, baseline: b, tolerance: tol }) =>
    e.rps < b.rps * tol.rps ? [`throughput ${round(e.rps, 1)}/s is below ${tol.rps} of the baseline ${round(b.rps, 1)}/s`] : [],
};
