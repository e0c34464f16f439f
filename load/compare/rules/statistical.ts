// The statistical latency rule: the one-sided Mann-Whitney test and the calibrated median ratio's
// interval (load/compare/detect.ts), for an endpoint both runs kept enough request durations of.
import type { EndpointRow } from '../../../core/formats.ts';
import type { EndpointDetection } from '../detect.ts';
import { type CompareRule, round } from './rule.ts';

export const STATISTICAL_RULE = 'statistical';

export const statisticalRule: CompareRule = {
  id: STATISTICAL_RULE,
  latency: true,
  // Too few requests to reach the level even if every one were slower: the ratio rule judges instead.
  applies: (i) => i.detection?.decidable === true,
  judge: (i) => (i.detection?.regression ? [`latency ${i.detection.reason}`] : []),
};

/** The test's figures as compare.json keeps them, also for an endpoint it could not decide. */
export function statisticalFigures(d: EndpointDetection): NonNullable<EndpointRow['statistical']> {
  return {
    effect: round(d.effect),
    lower: round(d.lower),
    upper: round(d.upper),
    p: d.p,
    alpha: d.alpha,
    n: d.n,
    regression: d.regression,
    reason: d.reason,
  };
}
