// Thresholds per endpoint tag, so a failed threshold reads e.g.
// `http_req_duration{endpoint:listExperiments.deep} p(95)<300`, naming the endpoint; and the
// thresholds that decide the run's verdict by the level of what failed (load/lib/checks.ts).
import { TRANSPORT_KINDS } from '../../core/transport-rule.ts';

export interface Limits {
  p95: number;
  p99: number;
}

export function endpointThresholds(endpoints: Record<string, Limits>, maxErrorRate: number): Record<string, string[]> {
  const t: Record<string, string[]> = {};
  for (const name of Object.keys(endpoints)) {
    t[`http_req_duration{endpoint:${name}}`] = [`p(95)<${endpoints[name].p95}`, `p(99)<${endpoints[name].p99}`];
    t[`http_req_failed{endpoint:${name}}`] = [`rate<=${maxErrorRate}`];
  }
  return t;
}

/** Stats every Trend reports; compare reads p(50), p(95), p(99) and count from the summary. */
export const TREND_STATS = ['avg', 'min', 'med', 'max', 'p(50)', 'p(90)', 'p(95)', 'p(99)', 'count'];

/**
 * Checks by level and transport failures: stated checks must meet `checksRule`; inferred ones only
 * under `strict` (otherwise their threshold always holds and is there so that their figures reach the
 * summary); answers that were the network's, not the target's, may be at most `transportBudget` of
 * all answers looked at. Each transport kind has a threshold that always holds, for its count.
 */
export function verdictThresholds(checksRule: string, strict: boolean, transportBudget: number): Record<string, string[]> {
  const t: Record<string, string[]> = {
    'checks{level:stated}': [checksRule],
    'checks{level:inferred}': [strict ? checksRule : 'rate>=0'],
    load_transport_failures: [`rate<=${transportBudget}`],
  };
  for (const kind of TRANSPORT_KINDS) t[`load_transport_failures{kind:${kind}}`] = ['rate>=0'];
  return t;
}
