// The error-rate rule: the share of failed requests above the baseline's plus a margin.
import { type CompareRule, round } from './rule.ts';

export const ERRORS_RULE = 'errors';

export const errorsRule: CompareRule = {
  id: ERRORS_RULE,
  latency: false,
  applies: () => true,
  judge: ({ run: e, baseline: b, tolerance: tol }) =>
    e.errorRate > b.errorRate + tol.errorRate
      ? [`error rate ${round(e.errorRate * 100, 2)}% is above the baseline ${round(b.errorRate * 100, 2)}% + ${tol.errorRate * 100}%`]
      : [],
};
