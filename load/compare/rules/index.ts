// The compare rules, in the order compareSummary (load/compare/baseline.ts) applies them and their
// reasons are listed: the latency rules first (the first that applies judges the endpoint), then
// throughput and errors. Adding a rule is adding a file here and a line to COMPARE_RULES.
import { errorsRule } from './errors.ts';
import { ratioRule } from './ratio.ts';
import type { CompareRule } from './rule.ts';
import { statisticalRule } from './statistical.ts';
import { throughputRule } from './throughput.ts';

export const COMPARE_RULES: readonly CompareRule[] = [statisticalRule, ratioRule, throughputRule, errorsRule];

export { ERRORS_RULE } from './errors.ts';
export { latencyRatio, RATIO_RULE } from './ratio.ts';
export { type CompareRule, type RuleId, type RuleInput, round } from './rule.ts';
export { STATISTICAL_RULE, statisticalFigures } from './statistical.ts';
export { THROUGHPUT_RULE } from './throughput.ts';
