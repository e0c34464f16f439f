// What every compare rule is given and returns: one endpoint of the run set against the same endpoint of
// the baseline. The rules are listed in index.ts; compareSummary (load/compare/baseline.ts) walks the list.
import type { EndpointRow, Figures, Tolerance } from '../../../core/formats.ts';
import type { EndpointDetection } from '../detect.ts';

/** What found a regression: the id each rule file declares beside its rule. */
export type RuleId = NonNullable<EndpointRow['flaggedBy']>[number];

export interface RuleInput {
  /** This run's figures of the endpoint, and the baseline's. */
  run: Figures;
  baseline: Figures;
  /** This run's calibration median over the baseline's: how much slower this machine answered the trivial request. */
  scale: number;
  tolerance: Tolerance;
  /** The statistical test of the endpoint (load/compare/detect.ts), when both runs kept samples. */
  detection: EndpointDetection | undefined;
}

/** The rules that judge latency: only the first of the list that applies does, and it is named in the row's `rule`. */
export type LatencyRuleId = NonNullable<EndpointRow['rule']>;

interface RuleBase {
  applies(input: RuleInput): boolean;
  /** Why the endpoint regressed by this rule's measure, one line each; empty when it did not. */
  judge(input: RuleInput): string[];
}

/** A latency rule judges an endpoint only when no latency rule before it applied; the others judge every endpoint with a baseline. */
export type CompareRule = (RuleBase & { id: LatencyRuleId; latency: true }) | (RuleBase & { id: RuleId; latency: false });

/** Figures rounded for compare.json and its reasons. */
export const round = (n: number, d = 3) => Math.round(n * 10 ** d) / 10 ** d;
